/**
 * Reusing prepared statements on the SQLite connection. The Prisma adapter for
 * better-sqlite3 calls `prepare(sql).bind(args)` for every query, so SQLite compiles the
 * same few dozen statements again and again, a visible share of an upload's main thread
 * (docs/performance.md, "Fewer SQL statements per upload"). Prisma's SQL text is stable per query shape, with values always bound, so a
 * small LRU of compiled statements by SQL text serves almost every query.
 *
 * `bind` fixes a statement's parameters for good, so the cache hands out a bound *view*
 * instead: the same calls the adapter makes (`reader`, `columns()`, `run()`,
 * `raw().all()`) with the arguments passed on each time. better-sqlite3 is synchronous, so
 * one statement is never used by two queries at once.
 */
import type { Database, Statement } from "better-sqlite3";

type Args = readonly unknown[];

/** What the adapter uses of a bound statement. */
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

/**
 * A statement's result columns, asked for by the adapter on every read: they are fixed once
 * the statement is compiled (the schema does not change while the server runs; migrations
 * run before it serves), and building them costs a native call and an array of objects.
 */
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

/** Makes `db.prepare` return cached statements (at most `size`, least recently used dropped). */
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

/** The better-sqlite3 connection inside Prisma's adapter, when it is one. */
export function sqliteClientOf(adapter: object): Database | null {
  const client: unknown = Reflect.get(adapter, "client");
  const looksLikeDb =
    typeof client === "object" &&
    client !== null &&
    typeof Reflect.get(client, "prepare") === "function" &&
    typeof Reflect.get(client, "exec") === "function";
  return looksLikeDb ? (client as Database) : null;
}
