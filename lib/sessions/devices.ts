/** A user's signed-in devices (docs/relay-account.md). Revocation deletes the row, so a revoked key fails the next request. */
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { liveSessionWhere } from "./expiry";
import { createSession, type IssuedSession } from "./sessions";

/** GET /sessions is not paged, so opening one more signs out the least recently active ones, never the one being opened. */
export const MAX_SESSIONS_PER_USER = 50;

export interface SessionRecord {
  id: string;
  name: string | null;
  createdAt: Date;
  lastActiveAt: Date;
}

export interface OpenSessionInput {
  userId: string;
  name: string;
  userAgent?: string;
  ip?: string;
  /** A recent confirmation (docs/two-factor.md). */
  confirmed?: boolean;
}

const sessionSelect = { id: true, name: true, createdAt: true, lastActiveAt: true } as const;

export async function openSession(input: OpenSessionInput): Promise<{ key: string; session: SessionRecord }> {
  const issued: IssuedSession = await createSession(input);
  await pruneSessions(input.userId, issued.id);
  const session = await db().relaySession.findUniqueOrThrow({ where: { id: issued.id }, select: sessionSelect });
  return { key: issued.key, session };
}

async function pruneSessions(userId: string, keepId: string): Promise<void> {
  const surplus = await db().relaySession.findMany({
    where: { userId, id: { not: keepId } },
    orderBy: [{ lastActiveAt: "desc" }, { id: "desc" }],
    skip: MAX_SESSIONS_PER_USER - 1,
    select: { id: true },
  });
  if (surplus.length) await db().relaySession.deleteMany({ where: { id: { in: surplus.map((s) => s.id) } } });
}

export async function listSessions(userId: string): Promise<SessionRecord[]> {
  return db().relaySession.findMany({
    // Ended sessions (lib/sessions/expiry.ts) are deleted when next presented; until then, not listed.
    where: { userId, ...liveSessionWhere() },
    orderBy: [{ lastActiveAt: "desc" }, { createdAt: "desc" }, { id: "desc" }],
    select: sessionSelect,
    take: MAX_SESSIONS_PER_USER,
  });
}

/** Another user's session id is not_found, like an unknown one, so ids cannot be probed. */
export async function revokeSession(userId: string, sessionId: string): Promise<void> {
  const { count } = await db().relaySession.deleteMany({ where: { id: sessionId, userId } });
  if (count === 0) throw new DomainError("not_found", "No such session.");
}

export async function revokeAllSessions(userId: string): Promise<number> {
  const { count } = await db().relaySession.deleteMany({ where: { userId } });
  return count;
}
