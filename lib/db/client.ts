/**
 * The one database handle. Both providers' clients are generated from the same model, so
 * they have the same API; the SQLite client's type stands for both.
 */
import { PrismaClient as SqliteClient } from "./generated/sqlite/client";
import { PrismaClient as PostgresClient } from "./generated/postgres/client";
import { createAdapter } from "./adapter";
import { databaseConfig, type DatabaseConfig } from "./config";
import { cachingDisabled, watchChanges, type ChangeWatcher } from "./change-signal";

export type Db = InstanceType<typeof SqliteClient>;
export type { Prisma } from "./generated/sqlite/client";
export type * as Models from "./generated/sqlite/models";

// Interactive transactions wait for SQLite's write lock as long as its busy timeout
// (15 s; the CLI and the server share one file) instead of Prisma's 2 s/5 s defaults.
const transactionOptions = { maxWait: 20_000, timeout: 20_000 };

// Per client, on globalThis like the client itself: both copies of this module in the
// production server (the custom server's bundle and Next's) must share one watcher (one
// LISTEN connection) per database.
const maps = globalThis as unknown as {
  __mediahostDbConfigs?: WeakMap<Db, DatabaseConfig>;
  __mediahostDbWatchers?: WeakMap<Db, ChangeWatcher>;
};
const configs = (maps.__mediahostDbConfigs ??= new WeakMap<Db, DatabaseConfig>());
const watchers = (maps.__mediahostDbWatchers ??= new WeakMap<Db, ChangeWatcher>());

export function createDb(config: DatabaseConfig = databaseConfig()): Db {
  const adapter = createAdapter(config);
  const client =
    config.provider === "postgres"
      ? (new PostgresClient({ adapter, transactionOptions }) as unknown as Db)
      : new SqliteClient({ adapter, transactionOptions });
  configs.set(client, config);
  return client;
}

/**
 * The database's change number (lib/db/change-signal.ts): read caches compare it with the
 * one they were filled at. The watcher starts with the first call.
 */
export function changeVersion(client: Db = db()): number {
  return changeWatcher(client).version();
}

/** The client's change watcher, started on first use. */
export function changeWatcher(client: Db = db()): ChangeWatcher {
  let watcher = watchers.get(client);
  if (!watcher) {
    const config = configs.get(client);
    watcher = config ? watchChanges(config) : cachingDisabled;
    watchers.set(client, watcher);
  }
  return watcher;
}

/** The client's database provider (undefined for a client not made by createDb). */
export function providerOf(client: Db = db()): DatabaseConfig["provider"] | undefined {
  return configs.get(client)?.provider;
}

/** The configuration a client was made with (undefined for a client not made by createDb). */
export function configOf(client: Db = db()): DatabaseConfig | undefined {
  return configs.get(client);
}

/** Disconnects a client and its change watcher. */
export async function closeDb(client: Db): Promise<void> {
  await watchers.get(client)?.close();
  watchers.delete(client);
  await client.$disconnect();
}

// One client per process, kept on globalThis so Next's module reloading in dev and the
// several bundles of a production build share it.
const holder = globalThis as unknown as { __mediahostDb?: Db };

export function db(): Db {
  holder.__mediahostDb ??= createDb();
  return holder.__mediahostDb;
}

/** For tests and the CLI: swap the process-wide client. */
export function setDb(client: Db | undefined): void {
  holder.__mediahostDb = client;
}

/** A transaction client: what `db().$transaction(async (tx) => ...)` hands its callback. */
export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];
