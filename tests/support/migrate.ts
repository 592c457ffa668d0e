/**
 * Migrated databases for tests, made by executing the migration SQL files directly
 * (milliseconds) and filling Prisma's history table as the real migrator leaves it.
 * tests/db/migrations.test.ts and the end-to-end server (tests/e2e/global-setup.ts) cover
 * the real migrator. No vitest here: benches and Playwright import tests/support/server.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createHash, randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";
import type { DatabaseProvider } from "@/lib/db/config";
import { migrationsDir } from "@/lib/db/migrator";

interface Migration {
  name: string;
  sql: string;
}

function migrations(provider: DatabaseProvider): Migration[] {
  const dir = migrationsDir(provider);
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(dir, name, "migration.sql"), "utf8") }));
}

/**
 * Prisma's history table, filled as the real migrator leaves it, so that the database counts
 * as migrated (the readiness check, lib/db/readiness.ts, answers 503 otherwise).
 */
const HISTORY_TABLE = {
  sqlite: `CREATE TABLE "_prisma_migrations" ("id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME,
    "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME, "started_at" DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`,
  postgres: `CREATE TABLE "_prisma_migrations" ("id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL,
    "finished_at" TIMESTAMPTZ, "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ,
    "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`,
};
const HISTORY_ROW = `INSERT INTO "_prisma_migrations" ("id", "checksum", "finished_at", "migration_name", "applied_steps_count")`;
const historyValues = (m: Migration): [string, string, string] => [randomUUID(), createHash("sha256").update(m.sql).digest("hex"), m.name];

/**
 * Creates the SQLite file `file` with every migration applied, as the migrator would
 * leave it. (The test servers start on such a file too: the real migrator, a child process
 * that loads the schema engine, took about half of each server's start.)
 */
export function migrateSqliteFile(file: string): void {
  const raw = new Database(file);
  try {
    raw.pragma("journal_mode = WAL");
    raw.exec(HISTORY_TABLE.sqlite);
    const record = raw.prepare(`${HISTORY_ROW} VALUES (?, ?, current_timestamp, ?, 1)`);
    for (const m of migrations("sqlite")) {
      raw.exec(m.sql);
      record.run(...historyValues(m));
    }
  } finally {
    raw.close();
  }
}

/** Applies every migration to `schema` of the PostgreSQL database at `pgUrl` (creating it first when asked). */
export async function migratePostgresSchema(pgUrl: string, schema: string, options: { create: boolean }): Promise<void> {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    if (options.create) await client.query(`CREATE SCHEMA "${schema}"`);
    await client.query(`SET search_path TO "${schema}"`);
    await client.query(HISTORY_TABLE.postgres);
    for (const m of migrations("postgres")) {
      await client.query(m.sql);
      await client.query(`${HISTORY_ROW} VALUES ($1, $2, now(), $3, 1)`, historyValues(m));
    }
  } finally {
    await client.end();
  }
}
