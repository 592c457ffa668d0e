/**
 * Resolves a key to a Principal with one indexed look-up by its hash, cached in a
 * VersionedCache: any committed write (a revoked key, a suspension, in any process) makes the
 * cached answers misses at once.
 */
import { deepFreeze } from "@/lib/cache/freeze";
import { VersionedCache } from "@/lib/cache/versioned";
import { db } from "@/lib/db/client";
import { isPlan, type Plan } from "@/lib/plans";
import { markUsed } from "./activity";
import { dropEndedSession, sessionEnded } from "@/lib/sessions/expiry";
import { hashKey, hashesEqual, keyKind } from "@/lib/crypto/keys";
import type { AccountSummary, Principal } from "@/lib/types/principal";
import type { KeyHeader } from "@/lib/types/surface";

export type { KeyHeader };

/** Key activity is written at most this often per key and process (coarse on purpose). */
const ACTIVITY_RESOLUTION_MS = 60_000;

interface UserRow {
  id: string;
  displayUsername: string;
  plan: string;
  suspended: boolean;
  quotaOverride: bigint | null;
}

const userSelect = { id: true, displayUsername: true, plan: true, suspended: true, quotaOverride: true } as const;

const bytesOrNull = (v: bigint | null): number | null => (v === null ? null : Number(v));

export function accountSummary(user: UserRow): AccountSummary {
  return {
    id: user.id,
    username: user.displayUsername,
    plan: (isPlan(user.plan) ? user.plan : "free") as Plan,
    suspended: user.suspended,
    quotaOverride: bytesOrNull(user.quotaOverride),
  };
}

interface Resolved {
  principal: Principal;
  lastActiveAt?: number;
  /** Relay sessions: when it was opened (lib/sessions/expiry.ts). */
  createdAt?: number;
}

/** Unknown keys are cached too (as null): guessing keys must not turn into queries. */
const resolved = new VersionedCache<string, Resolved | null>({ name: "keys", maxEntries: 25_000, ttlMs: 60_000 });

export async function authenticateKey(key: string, header: KeyHeader): Promise<Principal | null> {
  const kind = keyKind(key.trim());
  if (!kind) return null;
  const hash = hashKey(key.trim());
  const found = await resolved.get(`${header}:${hash}`, async () => freezePrincipal(await resolveKey(kind, hash, header)));
  return found && !ended(found) ? noteActivity(found) : null;
}

/** From the cache alone: null for a key known to be unknown, undefined when only the database can tell. */
export function peekKey(key: string, header: KeyHeader): Principal | null | undefined {
  if (!keyKind(key.trim())) return null;
  const found = resolved.peek(`${header}:${hashKey(key.trim())}`);
  if (found === undefined) return undefined;
  return found && !ended(found) ? noteActivity(found) : null;
}

function ended(found: Resolved): boolean {
  if (found.createdAt === undefined || found.principal.kind !== "session") return false;
  if (!sessionEnded(found.createdAt, found.lastActiveAt ?? found.createdAt)) return false;
  dropEndedSession(found.principal.sessionId);
  return true;
}

function noteActivity(found: Resolved): Principal {
  if (found.lastActiveAt !== undefined && Date.now() - found.lastActiveAt > ACTIVITY_RESOLUTION_MS) {
    // Not awaited; batched without moving the change number (lib/db/unannounced.ts), so this entry keeps the time itself.
    found.lastActiveAt = Date.now();
    markUsed(found.principal);
  }
  return found.principal;
}

function freezePrincipal(found: Resolved | null): Resolved | null {
  if (found) deepFreeze(found.principal);
  return found;
}

async function resolveKey(kind: NonNullable<ReturnType<typeof keyKind>>, hash: string, header: KeyHeader): Promise<Resolved | null> {
  if (kind === "team") {
    const team = await db().team.findUnique({ where: { keyHash: hash }, include: { owner: { select: userSelect } } });
    if (!team?.keyHash || !hashesEqual(team.keyHash, hash)) return null;
    return {
      principal: {
        kind: "team",
        team: {
          id: team.id,
          name: team.name,
          status: team.status === "lapsed" ? "lapsed" : "active",
          ownerId: team.ownerId,
          quotaOverride: bytesOrNull(team.quotaOverride),
        },
        owner: accountSummary(team.owner),
      },
    };
  }

  if (kind === "app" && header === "api-key") {
    const app = await db().app.findUnique({ where: { keyHash: hash }, include: { user: { select: userSelect } } });
    if (!app?.keyHash || app.revokedAt || !hashesEqual(app.keyHash, hash)) return null;
    return {
      principal: { kind: "app", user: accountSummary(app.user), appId: app.id, galleryAccess: app.galleryAccess },
      lastActiveAt: app.lastUsedAt?.getTime() ?? 0,
    };
  }

  if (kind === "relay" && header === "relay-key") {
    const session = await db().relaySession.findUnique({ where: { keyHash: hash }, include: { user: { select: userSelect } } });
    if (!session || !hashesEqual(session.keyHash, hash)) return null;
    return {
      principal: { kind: "session", user: accountSummary(session.user), sessionId: session.id },
      lastActiveAt: session.lastActiveAt.getTime(),
      createdAt: session.createdAt.getTime(),
    };
  }

  return null;
}
