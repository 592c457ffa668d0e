/**
 * When a key was last used (an app's "last used" on the dashboard, a Relay session's
 * last_active_at), written in batches.
 *
 * Every committed write makes every read cache a miss (lib/db/change-signal.ts), so one
 * UPDATE per key per minute, as before, meant that a server read by thousands of keys
 * (a bot fleet, a busy Relay) threw its caches away many times a second: with 2 800
 * rotating reader keys, `GET /posts/{code}` ran at a fraction of its cached speed and robots'
 * share pages were rendered again and again (docs/performance.md, "Read path under wrk").
 * Marks are therefore collected for FLUSH_DELAY_MS and written together, one statement per
 * table: a few cache invalidations per second at most, whatever the number of keys.
 */
import { db } from "../db/client";
import type { Principal } from "../types/principal";

/** How long marks are collected before they are written. */
export const FLUSH_DELAY_MS = 500;
/** Ids per UPDATE ... WHERE id IN (...): far below every driver's parameter limit. */
const CHUNK = 500;

const apps = new Set<string>();
const sessions = new Set<string>();
let timer: NodeJS.Timeout | null = null;
let flushing: Promise<void> = Promise.resolve();

/** Records that `principal` was used now; written within FLUSH_DELAY_MS, not awaited by the request. */
export function markUsed(principal: Principal): void {
  if (principal.kind === "app") apps.add(principal.appId);
  else if (principal.kind === "session") sessions.add(principal.sessionId);
  else return;
  if (timer) return;
  timer = setTimeout(() => {
    timer = null;
    void flushActivity();
  }, FLUSH_DELAY_MS);
  // Bookkeeping never keeps a process (the CLI, a test worker) alive.
  timer.unref();
}

/** Writes the marks collected so far (the timer calls it; tests and shutdown may too). */
export function flushActivity(): Promise<void> {
  const appIds = [...apps];
  const sessionIds = [...sessions];
  apps.clear();
  sessions.clear();
  if (appIds.length === 0 && sessionIds.length === 0) return flushing;
  const at = new Date();
  flushing = flushing.then(async () => {
    try {
      for (let i = 0; i < appIds.length; i += CHUNK) {
        await db().app.updateMany({ where: { id: { in: appIds.slice(i, i + CHUNK) } }, data: { lastUsedAt: at } });
      }
      for (let i = 0; i < sessionIds.length; i += CHUNK) {
        await db().relaySession.updateMany({ where: { id: { in: sessionIds.slice(i, i + CHUNK) } }, data: { lastActiveAt: at } });
      }
    } catch (error) {
      // Bookkeeping: a failed write must not fail anything else; the next use marks again.
      console.error("key activity not recorded", error);
    }
  });
  return flushing;
}
