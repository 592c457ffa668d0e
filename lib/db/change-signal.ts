/**
 * A number that moves whenever the database may have changed, in this process or another;
 * read caches (lib/cache/versioned.ts) treat an entry filled at an older number as gone
 * (docs/caching.md). Sources: this process's writes (markChanged from lib/db/adapter.ts);
 * SQLite's `PRAGMA data_version` on a connection of our own, read at most once per ms
 * (docs/performance.md, "data_version read at most once per millisecond"); PostgreSQL
 * statement triggers that `pg_notify` a LISTEN connection. A source that cannot be trusted
 * answers a new number on every call: every cache misses, slower but never stale.
 */
import Database from "better-sqlite3";
import type pg from "pg";
import { optionalPackage } from "@/lib/config/packages";
import { postgresTarget, type DatabaseConfig } from "./config";

export const CHANGE_CHANNEL = "mediahost_changes";

/** On globalThis: the production server runs two copies of this module, and a write through either must reach both's caches. */
const shared = globalThis as unknown as { __mediahostChanges?: { generation: number } };
const state = (shared.__mediahostChanges ??= { generation: 0 });

export function markChanged(): void {
  state.generation++;
}

export interface ChangeWatcher {
  version(): number;
  close(): Promise<void>;
  /**
   * SQLite only: one write on the watcher's own connection, whose commits its data_version
   * does not count (lib/db/unannounced.ts). "busy" when another connection holds the write lock:
   * never waited for, since the call is synchronous and the holder may be this very process.
   */
  writeUnseen?(sql: string, params: readonly unknown[]): "done" | "busy" | "unavailable";
}

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
