/**
 * The migration that adds roles turns the old, unused `isAdmin` flag into `role`, so an
 * account flagged admin before the upgrade is still one after it (docs/admin.md). Runs
 * the migration files up to the one before, writes users, then runs the role migration:
 * on SQLite, and on PostgreSQL when TEST_DATABASE_URL is set.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { migrationsDir } from "@/lib/db/migrator";

const ROLE_MIGRATION = "20261126040921_admin_roles_audit";

function migrations(provider: "sqlite" | "postgres"): { before: string[]; role: string } {
  const dir = migrationsDir(provider);
  const names = readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  const sql = (name: string) => readFileSync(join(dir, name, "migration.sql"), "utf8");
  return { before: names.filter((n) => n < ROLE_MIGRATION).map(sql), role: sql(ROLE_MIGRATION) };
}

const INSERT = `INSERT INTO "User" ("id", "username", "displayUsername", "isAdmin", "updatedAt") VALUES ($1, $1, $1, $2, CURRENT_TIMESTAMP)`;

describe("the role migration", () => {
  it("sqlite: isAdmin users become admins, everyone else users", () => {
    const dir = mkdtempSync(join(tmpdir(), "mediahost-role-"));
    try {
      const raw = new Database(join(dir, "test.db"));
      const { before, role } = migrations("sqlite");
      for (const sql of before) raw.exec(sql);
      const insert = raw.prepare(INSERT.replace("$1, $1, $1, $2", "?, ?, ?, ?"));
      insert.run("old-admin", "old-admin", "old-admin", 1);
      insert.run("old-user", "old-user", "old-user", 0);
      raw.exec(role);
      expect(raw.prepare(`SELECT "id", "role" FROM "User" ORDER BY "id"`).all()).toEqual([
        { id: "old-admin", role: "admin" },
        { id: "old-user", role: "user" },
      ]);
      raw.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.runIf(process.env.TEST_DATABASE_URL)("postgres: isAdmin users become admins, everyone else users", async () => {
    const schema = `t_${randomBytes(6).toString("hex")}`;
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA "${schema}"; SET search_path TO "${schema}";`);
      const { before, role } = migrations("postgres");
      for (const sql of before) await client.query(sql);
      await client.query(INSERT, ["old-admin", true]);
      await client.query(INSERT, ["old-user", false]);
      await client.query(role);
      const { rows } = await client.query(`SELECT "id", "role" FROM "User" ORDER BY "id"`);
      expect(rows).toEqual([
        { id: "old-admin", role: "admin" },
        { id: "old-user", role: "user" },
      ]);
    } finally {
      await client.query(`DROP SCHEMA "${schema}" CASCADE`);
      await client.end();
    }
  });
});
