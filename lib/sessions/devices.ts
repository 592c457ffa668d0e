/**
 * The signed-in devices of one user: opening a session at sign-in, listing them, and
 * signing one or all of them out. Revocation deletes the row; authentication looks the
 * key's hash up on every request (lib/auth/authenticate.ts, no cache), so a revoked key is
 * refused from the very next request on.
 */
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { liveSessionWhere } from "./expiry";
import { createSession, type IssuedSession } from "./sessions";

/**
 * Most sessions one user keeps. Every sign-in opens a session, and GET /sessions is not
 * paged, so the list is bounded here: opening one more signs out the least recently
 * active ones (forgotten browsers, reinstalled apps), never the one being opened.
 */
export const MAX_SESSIONS_PER_USER = 50;

export interface SessionRecord {
  id: string;
  name: string | null;
  createdAt: Date;
  lastActiveAt: Date;
}

export interface OpenSessionInput {
  userId: string;
  /** Readable device name (see device-name.ts). */
  name: string;
  userAgent?: string;
  ip?: string;
  /** Opened by a password or second factor just given (a recent confirmation, docs/two-factor.md). */
  confirmed?: boolean;
}

const sessionSelect = { id: true, name: true, createdAt: true, lastActiveAt: true } as const;

/** A new session for a sign-in: its relay-key (shown once) and its record. */
export async function openSession(input: OpenSessionInput): Promise<{ key: string; session: SessionRecord }> {
  const issued: IssuedSession = await createSession(input);
  await pruneSessions(input.userId, issued.id);
  const session = await db().relaySession.findUniqueOrThrow({ where: { id: issued.id }, select: sessionSelect });
  return { key: issued.key, session };
}

/** Signs out the least recently active sessions past MAX_SESSIONS_PER_USER, keeping `keepId`. */
async function pruneSessions(userId: string, keepId: string): Promise<void> {
  const surplus = await db().relaySession.findMany({
    where: { userId, id: { not: keepId } },
    orderBy: [{ lastActiveAt: "desc" }, { id: "desc" }],
    // The new session takes one of the places.
    skip: MAX_SESSIONS_PER_USER - 1,
    select: { id: true },
  });
  if (surplus.length) await db().relaySession.deleteMany({ where: { id: { in: surplus.map((s) => s.id) } } });
}

/** Every session of the user, most recently active first (GET /sessions, not paged). */
export async function listSessions(userId: string): Promise<SessionRecord[]> {
  return db().relaySession.findMany({
    // Ended sessions (lib/sessions/expiry.ts) are deleted when next presented; until then, not listed.
    where: { userId, ...liveSessionWhere() },
    orderBy: [{ lastActiveAt: "desc" }, { createdAt: "desc" }, { id: "desc" }],
    select: sessionSelect,
    take: MAX_SESSIONS_PER_USER,
  });
}

/**
 * Signs one session out. Another user's session id is not_found, exactly like an unknown
 * one, so ids of other people's sessions cannot be probed.
 */
export async function revokeSession(userId: string, sessionId: string): Promise<void> {
  const { count } = await db().relaySession.deleteMany({ where: { id: sessionId, userId } });
  if (count === 0) throw new DomainError("not_found", "No such session.");
}

/** Signs every session of the user out, the calling one included. Returns how many. */
export async function revokeAllSessions(userId: string): Promise<number> {
  const { count } = await db().relaySession.deleteMany({ where: { userId } });
  return count;
}
