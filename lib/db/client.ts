/** The one database handle; both providers' clients share the model, so the SQLite client's type stands for both. */
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

// On globalThis: both copies of this module in the production server must share one watcher
// (one LISTEN connection) per database.
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

/** The change number (lib/db/change-signal.ts); the watcher starts with the first call. */
export function changeVersion(client: Db = db()): number {
  return changeWatcher(client).version();
}

export function changeWatcher(client: Db = db()): ChangeWatcher {
  let watcher = watchers.get(client);
  if (!watcher) {
    const config = configs.get(client);
    watcher = config ? watchChanges(config) : cachingDisabled;
    watchers.set(client, watcher);
  }
  return watcher;
}

export function providerOf(client: Db = db()): DatabaseConfig["provider"] | undefined {
  return configs.get(client)?.provider;
}

export function configOf(client: Db = db()): DatabaseConfig | undefined {
  return configs.get(client);
}

export async function closeDb(client: Db): Promise<void> {
  await watchers.get(client)?.close();
  watchers.delete(client);
  await client.$disconnect();
}

// On globalThis so Next's dev reloading and the production build's bundles share it.
const holder = globalThis as unknown as { __mediahostDb?: Db };

export function db(): Db {
  holder.__mediahostDb ??= createDb();
  return holder.__mediahostDb;
}

export function setDb(client: Db | undefined): void {
  holder.__mediahostDb = client;
}

export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];
