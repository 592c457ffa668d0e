/**
 * Writes no read cache reads, kept from moving the change number: key activity, which with
 * thousands of keys in use lands twice a second and used to empty every read cache
 * (docs/performance.md, "Key activity that invalidates nothing"; docs/caching.md explains how
 * each source of the number is kept still).
 */
import { changeWatcher, db, providerOf, type Db } from "./client";
import { unannounced } from "./announce-scope";

export { unannounced };

export type ActivityTarget = "app" | "relaySession";

const ACTIVITY: Readonly<Record<ActivityTarget, { table: string; column: string }>> = {
  app: { table: "App", column: "lastUsedAt" },
  relaySession: { table: "RelaySession", column: "lastActiveAt" },
};

/** How Prisma's SQLite adapter stores a DateTime (its default `iso8601` format). */
const sqliteTime = (at: Date): string => at.toISOString().replace("Z", "+00:00");

/** False when SQLite's write lock was held elsewhere: nothing written, try later (waiting would block the event loop). */
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
