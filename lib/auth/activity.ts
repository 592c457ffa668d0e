/**
 * When a key was last used, written in batches that move no change number
 * (lib/db/unannounced.ts): one UPDATE per key per minute threw every read cache away many
 * times a second under thousands of keys (docs/performance.md, "Key activity that
 * invalidates nothing").
 */
import { isDependencyUnavailable } from "@/lib/faults/classify";
import { stampActivity, type ActivityTarget } from "@/lib/db/unannounced";
import type { Principal } from "@/lib/types/principal";

export const FLUSH_DELAY_MS = 500;
/** Far below every driver's parameter limit. */
const CHUNK = 500;

const apps = new Set<string>();
const sessions = new Set<string>();
let timer: NodeJS.Timeout | null = null;
let flushing: Promise<void> = Promise.resolve();

/** Written within FLUSH_DELAY_MS, not awaited by the request. */
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
      // A failed write fails nothing else (the next use marks again); an outage is logged once (docs/faults.md).
      if (!isDependencyUnavailable(error)) console.error("key activity not recorded", error);
    }
  });
  return flushing;
}

/** Ids SQLite's busy write lock kept out go back to `pending` for the next batch. */
async function write(target: ActivityTarget, ids: readonly string[], pending: Set<string>, at: Date): Promise<void> {
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    if (!(await stampActivity(target, chunk, at))) {
      for (const id of chunk) pending.add(id);
      schedule();
    }
  }
}
