/**
 * A fresh, migrated database per test file: SQLite in a temp file by default, or a new
 * schema of the PostgreSQL database in TEST_DATABASE_URL. The migration SQL files are
 * executed directly (milliseconds); tests/db/migrations.test.ts covers the real migrator.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { changeVersion, closeDb, createDb, setDb, type Db } from "@/lib/db/client";
import type { DatabaseConfig, DatabaseProvider } from "@/lib/db/config";
import { migratePostgresSchema, migrateSqliteFile } from "./migrate";

export interface TestDatabase {
  config: DatabaseConfig;
  db: Db;
  drop(): Promise<void>;
}

export const testProvider = (): DatabaseProvider => (process.env.TEST_DATABASE_URL ? "postgres" : "sqlite");

export async function createTestDatabase(): Promise<TestDatabase> {
  const pgUrl = process.env.TEST_DATABASE_URL;
  if (pgUrl) {
    const schema = `t_${randomBytes(6).toString("hex")}`;
    await migratePostgresSchema(pgUrl, schema, { create: true });
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
  migrateSqliteFile(file);
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
