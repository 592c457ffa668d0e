/**
 * When a session ends by itself (docs/web-auth.md): SESSION_IDLE_DAYS without a request or
 * SESSION_MAX_DAYS after sign-in. An ended session is deleted when next presented.
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

export function sessionEnded(createdAtMs: number, lastActiveAtMs: number, now: number = Date.now()): boolean {
  const { idleMs, maxMs } = sessionLifetimes();
  return (idleMs > 0 && now - lastActiveAtMs > idleMs) || (maxMs > 0 && now - createdAtMs > maxMs);
}

export function liveSessionWhere(now: number = Date.now()): { lastActiveAt?: { gte: Date }; createdAt?: { gte: Date } } {
  const { idleMs, maxMs } = sessionLifetimes();
  return {
    ...(idleMs > 0 ? { lastActiveAt: { gte: new Date(now - idleMs) } } : {}),
    ...(maxMs > 0 ? { createdAt: { gte: new Date(now - maxMs) } } : {}),
  };
}

/** Not awaited by callers: the request is refused either way. */
export function dropEndedSession(sessionId: string): void {
  db()
    .relaySession.deleteMany({ where: { id: sessionId } })
    .catch(() => {});
}
