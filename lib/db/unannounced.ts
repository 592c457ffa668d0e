/**
 * Writes that no read cache reads, kept from moving the change number
 * (lib/db/change-signal.ts). Today: key activity — `App.lastUsedAt` and
 * `RelaySession.lastActiveAt`, written in batches by lib/auth/activity.ts. With thousands
 * of keys in use those batches land twice a second, and each one used to empty every read
 * cache (every cached principal, post, like and robot page: docs/performance.md, "Key
 * activity that invalidates nothing"). The cached principal keeps its own activity time in
 * memory (lib/auth/authenticate.ts), so no cache needs to see these columns change.
 *
 * How each source of the change number is kept still (docs/caching.md):
 * - this process's own mark: the driver adapter (lib/db/adapter.ts) does not call
 *   markChanged() for statements run inside `unannounced()`;
 * - SQLite: the write runs on the change watcher's own connection, whose commits its
 *   `PRAGMA data_version` does not count (every other connection's still do);
 * - PostgreSQL: the `notify_change` triggers fire on UPDATE only for the other columns
 *   (migration `activity_unannounced`).
 * Any other write, to these tables or any other, still moves the number at once.
 */
import { changeWatcher, db, providerOf, type Db } from "./client";
import { unannounced } from "./announce-scope";

export { unannounced };

/** Tables with an activity column, by Prisma model name. */
export type ActivityTarget = "app" | "relaySession";

const ACTIVITY: Readonly<Record<ActivityTarget, { table: string; column: string }>> = {
  app: { table: "App", column: "lastUsedAt" },
  relaySession: { table: "RelaySession", column: "lastActiveAt" },
};

/** How Prisma's SQLite adapter stores a DateTime (its default `iso8601` format). */
const sqliteTime = (at: Date): string => at.toISOString().replace("Z", "+00:00");

/**
 * Sets the activity column of rows `ids` to `at` without moving the change number.
 * Answers false when SQLite's write lock was held elsewhere: nothing was written, the
 * caller tries again later (waiting here would block the event loop).
 */
export async function stampActivity(target: ActivityTarget, ids: readonly string[], at: Date, client: Db = db()): Promise<boolean> {
  if (ids.length === 0) return true;
  if (providerOf(client) === "sqlite") {
    const { table, column } = ACTIVITY[target];
    const sql = `UPDATE "${table}" SET "${column}" = ? WHERE "id" IN (${ids.map(() => "?").join(",")})`;
    const outcome = changeWatcher(client).writeUnseen?.(sql, [sqliteTime(at), ...ids]) ?? "unavailable";
    if (outcome === "busy") return false;
    if (outcome === "done") return true;
    // No writable watcher connection: written through Prisma; data_version then moves the
    // number (caches miss once), which is slower, never stale.
  }
  const where = { id: { in: [...ids] } };
  await unannounced(() =>
    target === "app"
      ? client.app.updateMany({ where, data: { lastUsedAt: at } })
      : client.relaySession.updateMany({ where, data: { lastActiveAt: at } }),
  );
  return true;
}
