/**
 * When a key was last used (an app's "last used" on the dashboard, a Relay session's
 * last_active_at), written in batches.
 *
 * Every committed write makes every read cache a miss (lib/db/change-signal.ts), so one
 * UPDATE per key per minute, as before, meant that a server read by thousands of keys
 * (a bot fleet, a busy Relay) threw its caches away many times a second: with 2 800
 * rotating reader keys, `GET /posts/{code}` ran at a fraction of its cached speed and robots'
 * share pages were rendered again and again (docs/performance.md, "Key activity that invalidates nothing").
 * Marks are therefore collected for FLUSH_DELAY_MS and written together, one statement per
 * table, and written so that they move no change number at all (lib/db/unannounced.ts): no
 * read cache reads these columns, so the caches stay warm however many keys are in use.
 */
import { isDependencyUnavailable } from "@/lib/faults/classify";
import { stampActivity, type ActivityTarget } from "@/lib/db/unannounced";
import type { Principal } from "@/lib/types/principal";

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
  schedule();
}

function schedule(): void {
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
      await write("app", appIds, apps, at);
      await write("relaySession", sessionIds, sessions, at);
    } catch (error) {
      // Bookkeeping: a failed write must not fail anything else; the next use marks again.
      // The database away is logged once per outage (docs/faults.md).
      if (!isDependencyUnavailable(error)) console.error("key activity not recorded", error);
    }
  });
  return flushing;
}

/** Writes `ids` in chunks; ids SQLite's busy write lock kept out go back to `pending` for the next batch. */
async function write(target: ActivityTarget, ids: readonly string[], pending: Set<string>, at: Date): Promise<void> {
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    if (!(await stampActivity(target, chunk, at))) {
      for (const id of chunk) pending.add(id);
      schedule();
    }
  }
}
