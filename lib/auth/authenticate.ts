/**
 * Resolves a presented key to a Principal with one indexed look-up by the key's hash.
 * The key's prefix says which table to look in; a wrong header (an app key in
 * `relay-key`) is simply not found.
 */
import { db } from "../db/client";
import { isPlan, type Plan } from "../plans";
import { hashKey, hashesEqual, keyKind } from "./keys";
import type { AccountSummary, Principal } from "./principal";

export type KeyHeader = "api-key" | "relay-key";

/** A Relay session's last_active_at is written at most this often (coarse on purpose). */
const ACTIVITY_RESOLUTION_MS = 60_000;

interface UserRow {
  id: string;
  displayUsername: string;
  plan: string;
  suspended: boolean;
}

const userSelect = { id: true, displayUsername: true, plan: true, suspended: true } as const;

function summary(user: UserRow): AccountSummary {
  return {
    id: user.id,
    username: user.displayUsername,
    plan: (isPlan(user.plan) ? user.plan : "free") as Plan,
    suspended: user.suspended,
  };
}

export async function authenticateKey(key: string, header: KeyHeader): Promise<Principal | null> {
  const kind = keyKind(key.trim());
  if (!kind) return null;
  const hash = hashKey(key.trim());

  if (kind === "team") {
    const team = await db().team.findUnique({ where: { keyHash: hash }, include: { owner: { select: userSelect } } });
    if (!team?.keyHash || !hashesEqual(team.keyHash, hash)) return null;
    return {
      kind: "team",
      team: { id: team.id, name: team.name, status: team.status === "lapsed" ? "lapsed" : "active", ownerId: team.ownerId },
      owner: summary(team.owner),
    };
  }

  if (kind === "app" && header === "api-key") {
    const app = await db().app.findUnique({ where: { keyHash: hash }, include: { user: { select: userSelect } } });
    if (!app?.keyHash || app.revokedAt || !hashesEqual(app.keyHash, hash)) return null;
    return { kind: "app", user: summary(app.user), appId: app.id, galleryAccess: app.galleryAccess };
  }

  if (kind === "relay" && header === "relay-key") {
    const session = await db().relaySession.findUnique({ where: { keyHash: hash }, include: { user: { select: userSelect } } });
    if (!session || !hashesEqual(session.keyHash, hash)) return null;
    if (Date.now() - session.lastActiveAt.getTime() > ACTIVITY_RESOLUTION_MS) {
      // Not awaited: activity is bookkeeping and must not slow or fail the request.
      db()
        .relaySession.updateMany({ where: { id: session.id }, data: { lastActiveAt: new Date() } })
        .catch(() => {});
    }
    return { kind: "session", user: summary(session.user), sessionId: session.id };
  }

  return null;
}
