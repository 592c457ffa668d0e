/**
 * On PostgreSQL the read caches learn of writes through notify triggers, one per table they
 * read (prisma/postgres/migrations/*_cache_change_notify): a table the post record includes
 * without a trigger leaves cached replies stale after another process writes it (the OCR
 * job's FileText rows, written after the post is cached). SQLite needs none: every commit
 * moves `PRAGMA data_version`.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../support/db";

const database = useTestDatabase();

/** The tables of the post record (lib/posts/record.ts) and of the key and session caches. */
const CACHED = ["Post", "File", "FileText", "PostAccess", "Like", "User", "App", "RelaySession", "Team", "TeamMember"];

describe("change notifications", () => {
  it("PostgreSQL: every table a read cache reads has its notify trigger", async () => {
    const { config } = database();
    if (config.provider !== "postgres") return;
    const url = new URL(config.url);
    const schema = url.searchParams.get("schema") ?? "public";
    url.searchParams.delete("schema");
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      const rows = await client.query<{ table: string }>(
        `SELECT c.relname AS table FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND t.tgname = c.relname || '_notify_change'`,
        [schema],
      );
      const notifying = new Set(rows.rows.map((r) => r.table));
      expect(CACHED.filter((table) => !notifying.has(table))).toEqual([]);
    } finally {
      await client.end();
    }
  });
});
