/**
 * Reused prepared statements: the better-sqlite3 adapter prepares every query again, a visible
 * share of an upload's main thread (docs/performance.md, "Fewer SQL statements per upload").
 * `bind` fixes parameters for good, so the cache hands out a bound view; better-sqlite3 is
 * synchronous, so one statement never serves two queries at once.
 */
import type { Database, Statement } from "better-sqlite3";

type Args = readonly unknown[];

interface BoundView {
  readonly reader: boolean;
  columns(): ReturnType<Statement["columns"]>;
  run(): ReturnType<Statement["run"]>;
  raw(): { all(): unknown[] };
}

interface CachedStatement {
  bind(args: Args): BoundView;
  run(...args: unknown[]): ReturnType<Statement["run"]>;
}

export const STATEMENT_CACHE_SIZE = 256;

/** Result columns, fixed once compiled (migrations run before the server serves), cached: each build is a native call. */
const columnsOf = new WeakMap<Statement, ReturnType<Statement["columns"]>>();

function view(stmt: Statement, args: Args): BoundView {
  return {
    reader: stmt.reader,
    columns: () => {
      let columns = columnsOf.get(stmt);
      if (!columns) columnsOf.set(stmt, (columns = stmt.columns()));
      return columns;
    },
    run: () => stmt.run(...args),
    raw: () => ({ all: () => stmt.raw(true).all(...args) as unknown[] }),
  };
}

export function cachePreparedStatements(db: Database, size = STATEMENT_CACHE_SIZE): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, Statement>();
  const cached = (sql: string): CachedStatement => {
    let stmt = cache.get(sql);
    if (stmt) {
      cache.delete(sql); // re-inserted below: Map order is the LRU order
    } else {
      stmt = prepare(sql);
      if (cache.size >= size) cache.delete(cache.keys().next().value as string);
    }
    cache.set(sql, stmt);
    const s = stmt;
    return { bind: (args) => view(s, args), run: (...args) => s.run(...args) };
  };
  (db as unknown as { prepare: (sql: string) => CachedStatement }).prepare = cached;
}

export function sqliteClientOf(adapter: object): Database | null {
  const client: unknown = Reflect.get(adapter, "client");
  const looksLikeDb =
    typeof client === "object" &&
    client !== null &&
    typeof Reflect.get(client, "prepare") === "function" &&
    typeof Reflect.get(client, "exec") === "function";
  return looksLikeDb ? (client as Database) : null;
}
