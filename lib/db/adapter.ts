import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory, SqlQuery, Transaction } from "@prisma/driver-adapter-utils";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { optionalPackage } from "@/lib/config/packages";
import { env } from "@/lib/config/env";
import { setGaugeSource } from "@/lib/metrics/registry";
import { markChanged } from "./change-signal";
import { postgresTarget, type DatabaseConfig } from "./config";
import { announcesWrites } from "./announce-scope";
import { asUnavailable, DependencyUnavailable } from "@/lib/faults/classify";
import { isDown, markUp } from "@/lib/faults/outages";
import { cachePreparedStatements, sqliteClientOf } from "./sqlite-statements";

export interface AdapterOptions {
  /** DATABASE_QUERY_TIMEOUT_MS and DATABASE_CONNECT_TIMEOUT_MS (docs/faults.md); off for the migrator, whose index builds may take minutes. */
  bounded: boolean;
}

export function createAdapter(config: DatabaseConfig, options: AdapterOptions = { bounded: true }): SqlMigrationAwareDriverAdapterFactory {
  const factory = createBaseAdapter(config, options);
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect().catch((error: unknown) => {
      throw asUnavailable(error, "database");
    });
    const sqlite = config.provider === "sqlite" ? sqliteClientOf(adapter) : null;
    if (sqlite) cachePreparedStatements(sqlite);
    if (config.provider === "postgres") watchPool(adapter);
    return reportingFaults(announcingWrites(adapter), adapter);
  };
  return factory;
}

function pgBounds(bounded: boolean): { connectionTimeoutMillis?: number; query_timeout?: number } {
  if (!bounded) return {};
  const connect = env().DATABASE_CONNECT_TIMEOUT_MS ?? 2000;
  const query = env().DATABASE_QUERY_TIMEOUT_MS ?? 3000;
  // query_timeout is the client's own timer: it also ends a wait on a connection whose packets are dropped.
  return { ...(connect > 0 ? { connectionTimeoutMillis: connect } : {}), ...(query > 0 ? { query_timeout: query } : {}) };
}

function createBaseAdapter(config: DatabaseConfig, options: AdapterOptions): SqlMigrationAwareDriverAdapterFactory {
  if (config.provider === "postgres") {
    // Prisma's `?schema=`: the search_path makes raw SQL land in the same schema as generated queries.
    const { connectionString, schema } = postgresTarget(config.url);
    const { PrismaPg } = optionalPackage<typeof import("@prisma/adapter-pg")>("@prisma/adapter-pg");
    return new PrismaPg(
      {
        connectionString,
        max: env().DATABASE_POOL_SIZE ?? 10,
        ...pgBounds(options.bounded),
        ...(schema ? { options: `-c search_path="${schema.replace(/"/g, "")}"` } : {}),
      },
      schema ? { schema } : undefined,
    );
  }
  // `timeout` is SQLite's busy timeout: the admin CLI and the server write to one file.
  const factory = new PrismaBetterSqlite3({ url: config.url, timeout: env().DATABASE_BUSY_TIMEOUT_MS ?? 15_000 });
  const connectShadow = factory.connectToShadowDb.bind(factory);
  factory.connectToShadowDb = async () => scriptTolerant(await connectShadow());
  return factory;
}

/**
 * The schema engine replays each migration on the SQLite shadow database as one `executeRaw`,
 * and better-sqlite3 prepares one statement at a time: on the shadow connection only, a
 * parameterless `executeRaw` runs as a script (the drift check; queries never go there).
 */
function scriptTolerant(adapter: SqlDriverAdapter): SqlDriverAdapter {
  return new Proxy(adapter, {
    get(target, property) {
      if (property === "executeRaw") {
        return async (query: SqlQuery): Promise<number> => {
          if (query.args.length > 0) return target.executeRaw(query);
          await target.executeScript(query.sql);
          return 0;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      // Bound to the real adapter: its methods use private fields a proxy does not have.
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const isRead = (sql: string): boolean => /^\s*select\b/i.test(sql);

/**
 * Tells the change signal about this process's own writes once others can see them (after a
 * statement outside a transaction, after a commit): read caches are stale at once, whatever
 * a PostgreSQL notification takes to arrive.
 */
function announcingWrites(adapter: SqlDriverAdapter): SqlDriverAdapter {
  // Decided when the statement starts, in the caller's async context (lib/db/unannounced.ts).
  const after = <T>(result: Promise<T>): Promise<T> => {
    if (!announcesWrites()) return result;
    return result.finally(() => {
      markChanged();
    });
  };
  return new Proxy(adapter, {
    get(target, property) {
      switch (property) {
        case "executeRaw":
          return (query: SqlQuery) => after(target.executeRaw(query));
        case "executeScript":
          return (script: string) => after(target.executeScript(script));
        case "queryRaw":
          return (query: SqlQuery) => (isRead(query.sql) ? target.queryRaw(query) : after(target.queryRaw(query)));
        case "startTransaction":
          return async (...args: Parameters<SqlDriverAdapter["startTransaction"]>) => {
            const announce = announcesWrites();
            const tx = await target.startTransaction(...args);
            return announce ? committingAnnounces(tx) : tx;
          };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * Every statement's outcome told to the outage log (lib/faults/outages.ts): an error that means
 * the database is away becomes DependencyUnavailable and marks the outage; an answer to a
 * statement sent after it began ends it. Meanwhile new statements fail at once instead of each
 * waiting out the timeout, and a `SELECT 1` every PROBE_INTERVAL_MS finds out when it is back.
 */
function reportingFaults<T extends object>(adapter: T, probe: SqlDriverAdapter | null): T {
  return new Proxy(adapter, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      const method = value.bind(target) as (...args: unknown[]) => unknown;
      if (property === "startTransaction") {
        return (...args: unknown[]) =>
          watched(() => method(...args) as Promise<Transaction>, probe).then((tx) => reportingFaults(tx, null));
      }
      if (!WATCHED.has(property)) return method;
      // A transaction's statements, commit and rollback are always sent: it holds a connection already.
      return (...args: unknown[]) =>
        watched(() => method(...args) as Promise<unknown>, property === "commit" || property === "rollback" ? null : probe);
    },
  });
}

const WATCHED = new Set<string | symbol>(["queryRaw", "executeRaw", "executeScript", "commit", "rollback"]);

const PROBE_INTERVAL_MS = 500;
const circuit = ((globalThis as unknown as { __mediahostDbProbe?: { probing: boolean } }).__mediahostDbProbe ??= { probing: false });

function probeUntilBack(adapter: SqlDriverAdapter): void {
  if (circuit.probing) return;
  circuit.probing = true;
  const tick = (): void => {
    if (!isDown("database")) {
      circuit.probing = false;
      return;
    }
    const sentAt = Date.now();
    adapter.queryRaw({ sql: "SELECT 1", args: [], argTypes: [] }).then(
      () => {
        circuit.probing = false;
        markUp("database", sentAt);
      },
      () => setTimeout(tick, PROBE_INTERVAL_MS).unref(),
    );
  };
  setTimeout(tick, PROBE_INTERVAL_MS).unref();
}

/** `send()`, told to the outage log; with `gate`, refused at once while the database is known away. */
function watched<T>(send: () => Promise<T>, gate: SqlDriverAdapter | null): Promise<T> {
  if (gate && isDown("database")) {
    probeUntilBack(gate);
    return Promise.reject(new DependencyUnavailable("database"));
  }
  const sentAt = Date.now();
  let sent: Promise<T>;
  try {
    sent = send();
  } catch (error) {
    sent = Promise.reject(error);
  }
  return sent.then(
    (value) => {
      markUp("database", sentAt);
      return value;
    },
    (error: unknown) => {
      const fault = asUnavailable(error, "database");
      if (gate && fault !== error) probeUntilBack(gate);
      throw fault;
    },
  );
}

function committingAnnounces(tx: Transaction): Transaction {
  return new Proxy(tx, {
    get(target, property) {
      if (property === "commit") return () => target.commit().finally(() => markChanged());
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** For GET /metrics (`db_pool_connections`); SQLite has no pool. */
function watchPool(adapter: SqlDriverAdapter): void {
  const driver = (adapter as { underlyingDriver?: () => unknown }).underlyingDriver?.();
  const isPool = (value: unknown): value is PoolCounts => typeof (value as PoolCounts | undefined)?.totalCount === "number";
  if (!isPool(driver)) return;
  setGaugeSource("db_pool_connections", () => ({ total: driver.totalCount, idle: driver.idleCount, waiting: driver.waitingCount }));
}
