/**
 * Bringing the database up to date before the admin CLI touches it. Most calls find it
 * migrated already, so a cheap look at `_prisma_migrations` decides whether the
 * migrator (which loads a WebAssembly engine, about a second) runs at all. Two CLI calls
 * racing on a new database are safe: the migrator takes the engine's migration lock and
 * the second finds nothing left to apply.
 */
import type { Db } from "@/lib/db/client";
import type { DatabaseConfig, DatabaseProvider } from "@/lib/db/config";
import { applyMigrations, migrationList } from "@/lib/db/migrator";

/** Names of the applied migrations, or an empty set when the history table does not exist yet. */
async function appliedMigrations(client: Db, provider: DatabaseProvider): Promise<Set<string>> {
  // Unqualified names: on PostgreSQL the adapter's search_path points at the `?schema=`.
  const [table] =
    provider === "sqlite"
      ? await client.$queryRaw<{ present: number | bigint }[]>`
          SELECT COUNT(*) AS present FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'`
      : await client.$queryRaw<{ present: boolean }[]>`
          SELECT to_regclass('_prisma_migrations') IS NOT NULL AS present`;
  if (!table || !Number(table.present)) return new Set();
  const rows = await client.$queryRaw<{ migration_name: string }[]>`
    SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
  return new Set(rows.map((row) => row.migration_name));
}

/** Migrations in prisma/<provider>/migrations that the database has not applied. */
export async function pendingMigrations(client: Db, provider: DatabaseProvider): Promise<string[]> {
  const applied = await appliedMigrations(client, provider);
  return migrationList(provider)
    .migrationDirectories.map((dir) => dir.path)
    .filter((name) => !applied.has(name));
}

/** Applies pending migrations, if any; returns the names applied now. Idempotent. */
export async function ensureMigrated(client: Db, config: DatabaseConfig): Promise<string[]> {
  const pending = await pendingMigrations(client, config.provider);
  if (pending.length === 0) return [];
  return applyMigrations(config);
}
