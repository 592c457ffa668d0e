/**
 * When a Relay or web session ends by itself (issue 27): after SESSION_IDLE_DAYS without a
 * request (default 30) or SESSION_MAX_DAYS after its sign-in (default 365), whichever comes
 * first; 0 turns either off. Checked wherever a session is resolved (a relay-key in
 * lib/auth/authenticate.ts, the web cookie in lib/auth/web-session.ts); an ended session is
 * deleted, so it leaves the session list too. `last_active_at` is written at most once a
 * minute, so idle time is measured to the minute.
 */
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";

const DAY_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_SESSION_IDLE_DAYS = 30;
export const DEFAULT_SESSION_MAX_DAYS = 365;

export interface SessionLifetimes {
  /** Milliseconds; 0: no limit. */
  idleMs: number;
  maxMs: number;
}

export function sessionLifetimes(): SessionLifetimes {
  const { SESSION_IDLE_DAYS: idle = DEFAULT_SESSION_IDLE_DAYS, SESSION_MAX_DAYS: max = DEFAULT_SESSION_MAX_DAYS } = env();
  return { idleMs: idle * DAY_MS, maxMs: max * DAY_MS };
}

/** True when a session created at `createdAtMs` and last used at `lastActiveAtMs` has ended. */
export function sessionEnded(createdAtMs: number, lastActiveAtMs: number, now: number = Date.now()): boolean {
  const { idleMs, maxMs } = sessionLifetimes();
  return (idleMs > 0 && now - lastActiveAtMs > idleMs) || (maxMs > 0 && now - createdAtMs > maxMs);
}

/** The condition of the sessions still alive, for lists. */
export function liveSessionWhere(now: number = Date.now()): { lastActiveAt?: { gte: Date }; createdAt?: { gte: Date } } {
  const { idleMs, maxMs } = sessionLifetimes();
  return {
    ...(idleMs > 0 ? { lastActiveAt: { gte: new Date(now - idleMs) } } : {}),
    ...(maxMs > 0 ? { createdAt: { gte: new Date(now - maxMs) } } : {}),
  };
}

/** Deletes a session found ended (not awaited by callers: the request is refused either way). */
export function dropEndedSession(sessionId: string): void {
  db()
    .relaySession.deleteMany({ where: { id: sessionId } })
    .catch(() => {});
}
