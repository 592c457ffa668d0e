/**
 * Migrations before the admin CLI touches the database: a cheap look at `_prisma_migrations`
 * decides whether the migrator (a WebAssembly engine, about a second) runs at all.
 */
import type { Db } from "@/lib/db/client";
import type { DatabaseConfig, DatabaseProvider } from "@/lib/db/config";
import { applyMigrations, migrationList } from "@/lib/db/migrator";

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

export async function pendingMigrations(client: Db, provider: DatabaseProvider): Promise<string[]> {
  const applied = await appliedMigrations(client, provider);
  return migrationList(provider)
    .migrationDirectories.map((dir) => dir.path)
    .filter((name) => !applied.has(name));
}

/** Idempotent; returns the names applied now. */
export async function ensureMigrated(client: Db, config: DatabaseConfig): Promise<string[]> {
  const pending = await pendingMigrations(client, config.provider);
  if (pending.length === 0) return [];
  return applyMigrations(config);
}
