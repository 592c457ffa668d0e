/**
 * A number that moves whenever the database may have changed, in this process or in any
 * other (the admin CLI, another instance). Read caches (lib/cache/versioned.ts) remember
 * the number they were filled at and treat an entry as gone once it has moved, so a
 * cached read is never older than the last commit this process could know about.
 *
 * Three sources move it:
 * - this process's own writes: the driver adapter (lib/db/adapter.ts) calls markChanged()
 *   after every statement that may write outside a transaction and after every commit;
 * - SQLite: `PRAGMA data_version` on a connection of our own changes whenever any other
 *   connection commits (the CLI, and also our own Prisma connection). Its own commits,
 *   key activity only, do not count (lib/db/unannounced.ts). It needs no I/O but is a
 *   statement all the same, which showed in a cached read's profile when run on every
 *   look-up (docs/performance.md, "data_version read at most once per millisecond"), so it is read at
 *   most once per millisecond: another process's commit shows within 1 ms, this process's
 *   own at once (markChanged);
 * - PostgreSQL: statement triggers on the tables the caches read (migration
 *   `cache_change_notify`) `pg_notify` the channel below with their schema at commit; a
 *   LISTEN connection per process moves the number when one for its schema arrives.
 *
 * When the source cannot be trusted (PostgreSQL before LISTEN is up, or after it broke; a
 * SQLite file that cannot be opened) `version()` answers a new number on every call, which
 * turns every cache into a miss: slower, never stale.
 */
import Database from "better-sqlite3";
import type pg from "pg";
import { optionalPackage } from "@/lib/config/packages";
import { postgresTarget, type DatabaseConfig } from "./config";

export const CHANGE_CHANNEL = "mediahost_changes";

/**
 * The number itself, one per process: kept on globalThis because the production server
 * runs two copies of this module (the custom server's bundle and Next's), and a write
 * made through either must be seen by the caches of both.
 */
const shared = globalThis as unknown as { __mediahostChanges?: { generation: number } };
const state = (shared.__mediahostChanges ??= { generation: 0 });

/** Something in the database changed (or may have): every cached read is now stale. */
export function markChanged(): void {
  state.generation++;
}

export interface ChangeWatcher {
  version(): number;
  close(): Promise<void>;
  /**
   * SQLite only: runs one write on the watcher's own connection, whose commits its
   * `PRAGMA data_version` does not count, so the change number stays put (for writes no
   * read cache reads, lib/db/unannounced.ts). "busy" when another connection holds the
   * write lock (never waited for: the call is synchronous and would stall the event loop,
   * and the holder may be an interactive transaction of this very process), "unavailable"
   * when there is no such connection.
   */
  writeUnseen?(sql: string, params: readonly unknown[]): "done" | "busy" | "unavailable";
}

/** Caching off: every read is a miss. */
const alwaysChanged: ChangeWatcher = {
  version: () => ++state.generation,
  close: async () => {},
};

function openWatcher(file: string): { conn: Database.Database; writable: boolean } | null {
  // Read-write when the file allows it (for writeUnseen); a busy timeout of 0: see there.
  try {
    return { conn: new Database(file, { fileMustExist: true, timeout: 0 }), writable: true };
  } catch {
    try {
      return { conn: new Database(file, { readonly: true, fileMustExist: true }), writable: false };
    } catch {
      return null;
    }
  }
}

const SQLITE_BUSY = /^SQLITE_(BUSY|LOCKED)/;

function watchSqlite(file: string): ChangeWatcher {
  const opened = openWatcher(file);
  if (!opened) return alwaysChanged;
  const { conn, writable } = opened;
  const statement = conn.prepare("PRAGMA data_version").pluck();
  let seen = statement.get() as number;
  let checkedAt = Date.now();
  return {
    version() {
      const now = Date.now();
      if (now === checkedAt) return state.generation;
      checkedAt = now;
      let current: number;
      try {
        current = statement.get() as number;
      } catch {
        return ++state.generation;
      }
      if (current !== seen) {
        seen = current;
        state.generation++;
      }
      return state.generation;
    },
    writeUnseen(sql, params) {
      if (!writable || !conn.open) return "unavailable";
      try {
        conn.prepare(sql).run(...params);
        return "done";
      } catch (error) {
        const code = (error as { code?: string }).code ?? "";
        if (SQLITE_BUSY.test(code)) return "busy";
        // SQLite opened a write-protected file read-only after all.
        if (code.startsWith("SQLITE_READONLY")) return "unavailable";
        throw error;
      }
    },
    async close() {
      conn.close();
    },
  };
}

const RECONNECT_MS = 1000;

function watchPostgres(url: string): ChangeWatcher {
  let listening = false;
  let closed = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  // Notifications name the schema they come from (deployments may share a database).
  const { connectionString, schema } = postgresTarget(url);
  const target = { config: { connectionString }, schema: schema ?? "public" };

  const connect = (): void => {
    const { Client } = optionalPackage<typeof pg>("pg");
    const c = new Client(target.config);
    client = c;
    const lost = (): void => {
      if (client !== c) return;
      listening = false;
      client = null;
      c.end().catch(() => {});
      if (!closed) {
        retry = setTimeout(connect, RECONNECT_MS);
        retry.unref();
      }
    };
    c.on("notification", (message) => {
      if (message.payload === target.schema) state.generation++;
    });
    c.on("error", lost);
    c.on("end", lost);
    const connecting = c.connect();
    // The listener must not keep a finished process (a test worker, the CLI) alive.
    (c as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
    connecting
      .then(() => c.query(`LISTEN ${CHANGE_CHANNEL}`))
      .then(() => {
        if (client !== c) return;
        // Anything committed while we were not listening is unknown: start over.
        state.generation++;
        listening = true;
      })
      .catch(lost);
  };
  connect();

  return {
    version: () => (listening ? state.generation : ++state.generation),
    async close() {
      closed = true;
      listening = false;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}

export function watchChanges(config: DatabaseConfig): ChangeWatcher {
  return config.provider === "postgres" ? watchPostgres(config.url) : watchSqlite(config.url);
}

export { alwaysChanged as cachingDisabled };
