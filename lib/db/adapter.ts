import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type { DatabaseConfig } from "./config";

/** The Prisma driver adapter for a database configuration. */
export function createAdapter(config: DatabaseConfig): SqlMigrationAwareDriverAdapterFactory {
  if (config.provider === "postgres") {
    return new PrismaPg({ connectionString: config.url, max: Number(process.env.DATABASE_POOL_SIZE || 10) });
  }
  // `timeout` is SQLite's busy timeout: the admin CLI and the server write to one file.
  return new PrismaBetterSqlite3({ url: config.url, timeout: 15_000 });
}
