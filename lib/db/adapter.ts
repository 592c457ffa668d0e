import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type { DatabaseConfig } from "./config";

/** The Prisma driver adapter for a database configuration. */
export function createAdapter(config: DatabaseConfig): SqlMigrationAwareDriverAdapterFactory {
  if (config.provider === "postgres") {
    // Prisma's `?schema=` convention: generated queries qualify tables with it, and the
    // search_path makes raw SQL land in the same schema.
    const url = new URL(config.url);
    const schema = url.searchParams.get("schema") || undefined;
    url.searchParams.delete("schema");
    return new PrismaPg(
      {
        connectionString: url.toString(),
        max: Number(process.env.DATABASE_POOL_SIZE || 10),
        ...(schema ? { options: `-c search_path="${schema.replace(/"/g, "")}"` } : {}),
      },
      schema ? { schema } : undefined,
    );
  }
  // `timeout` is SQLite's busy timeout: the admin CLI and the server write to one file.
  return new PrismaBetterSqlite3({ url: config.url, timeout: 15_000 });
}
