/**
 * A fresh, migrated database per test file: SQLite in a temp file by default, or a new
 * schema of the PostgreSQL database in TEST_DATABASE_URL. The migration SQL files are
 * executed directly (milliseconds); tests/db/migrations.test.ts covers the real migrator.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { changeVersion, closeDb, createDb, setDb, type Db } from "@/lib/db/client";
import type { DatabaseConfig, DatabaseProvider } from "@/lib/db/config";
import { migrationsDir } from "@/lib/db/migrator";

export interface TestDatabase {
  config: DatabaseConfig;
  db: Db;
  drop(): Promise<void>;
}

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

export const testProvider = (): DatabaseProvider => (process.env.TEST_DATABASE_URL ? "postgres" : "sqlite");

export async function createTestDatabase(): Promise<TestDatabase> {
  const pgUrl = process.env.TEST_DATABASE_URL;
  if (pgUrl) {
    const schema = `t_${randomBytes(6).toString("hex")}`;
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`CREATE SCHEMA "${schema}"; SET search_path TO "${schema}";`);
    await client.query(HISTORY_TABLE.postgres);
    for (const m of migrations("postgres")) {
      await client.query(m.sql);
      await client.query(`${HISTORY_ROW} VALUES ($1, $2, now(), $3, 1)`, historyValues(m));
    }
    await client.end();
    const url = new URL(pgUrl);
    url.searchParams.set("schema", schema);
    const config: DatabaseConfig = { provider: "postgres", url: url.toString() };
    const db = createDb(config);
    return {
      config,
      db,
      async drop() {
        await closeDb(db);
        const c = new pg.Client({ connectionString: pgUrl });
        await c.connect();
        await c.query(`DROP SCHEMA "${schema}" CASCADE`);
        await c.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), "mediahost-db-"));
  const file = join(dir, "test.db");
  const raw = new Database(file);
  raw.pragma("journal_mode = WAL");
  raw.exec(HISTORY_TABLE.sqlite);
  const record = raw.prepare(`${HISTORY_ROW} VALUES (?, ?, current_timestamp, ?, 1)`);
  for (const m of migrations("sqlite")) {
    raw.exec(m.sql);
    record.run(...historyValues(m));
  }
  raw.close();
  const config: DatabaseConfig = { provider: "sqlite", url: file };
  const db = createDb(config);
  return {
    config,
    db,
    async drop() {
      await closeDb(db);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Gives the test file its own database and makes it the process-wide `db()`. Returns a
 * getter because the database exists only once beforeAll has run.
 */
export function useTestDatabase(): () => TestDatabase {
  let current: TestDatabase | undefined;
  beforeAll(async () => {
    current = await createTestDatabase();
    setDb(current.db);
  });
  afterAll(async () => {
    setDb(undefined);
    await current?.drop();
  });
  return () => {
    if (!current) throw new Error("useTestDatabase(): the database is created in beforeAll");
    return current;
  };
}

/**
 * The change number once it holds still for 100 ms: PostgreSQL caches stay off until
 * LISTEN is up, and notifications of a file's own earlier writes may still be on their way.
 */
export async function settledVersion(): Promise<number> {
  let last = changeVersion();
  let stable = 0;
  for (let i = 0; i < 200 && stable < 5; i++) {
    await new Promise((done) => setTimeout(done, 20));
    const now = changeVersion();
    stable = now === last ? stable + 1 : 0;
    last = now;
  }
  if (stable < 5) throw new Error("the change signal never settled");
  return last;
}
