/**
 * The `gallery_sort` migration fills the new sort keys of posts written before it
 * (docs/gallery-sort.md, "Where the keys live"): each provider's migrations up to it
 * replayed as written, rows inserted, then the migration itself, on SQLite and (with
 * TEST_DATABASE_URL) PostgreSQL.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { withTempSchema } from "@/lib/db/drift";
import { migrationList } from "@/lib/db/migrator";
import type { DatabaseProvider } from "@/lib/db/config";

const TARGET = /_gallery_sort$/;

/** The SQL of every migration before gallery_sort, and of gallery_sort itself. */
function scripts(provider: DatabaseProvider): { before: string[]; target: string } {
  const list = migrationList(provider);
  const names = list.migrationDirectories.map((d) => d.path);
  const at = names.findIndex((n) => TARGET.test(n));
  expect(at).toBeGreaterThan(0);
  const read = (name: string) => readFileSync(join(list.baseDir, name, "migration.sql"), "utf8");
  return { before: names.slice(0, at).map(read), target: read(names[at]) };
}

const now = "2026-06-01 00:00:00";
const ROWS = [
  `INSERT INTO "User" ("id", "username", "displayUsername", "updatedAt") VALUES ('u1', 'ann', 'Ann', '${now}')`,
  // A titled album of two files, an untitled post named by its first file, and a post without files.
  `INSERT INTO "Post" ("id", "code", "userId", "title", "updatedAt") VALUES ('p1', 'c1', 'u1', 'Holiday PICS', '${now}')`,
  `INSERT INTO "Post" ("id", "code", "userId", "title", "updatedAt") VALUES ('p2', 'c2', 'u1', NULL, '${now}')`,
  `INSERT INTO "Post" ("id", "code", "userId", "title", "updatedAt") VALUES ('p3', 'c3', 'u1', NULL, '${now}')`,
  `INSERT INTO "File" ("id", "postId", "index", "name", "storageKey", "size", "mimeType") VALUES ('f1', 'p1', 0, 'a.png', 'k1', 5000000000, 'image/png')`,
  `INSERT INTO "File" ("id", "postId", "index", "name", "storageKey", "size", "mimeType") VALUES ('f2', 'p1', 1, 'b.png', 'k2', 20, 'image/png')`,
  `INSERT INTO "File" ("id", "postId", "index", "name", "storageKey", "size", "mimeType") VALUES ('f3', 'p2', 1, 'Second.PNG', 'k3', 7, 'image/png')`,
  `INSERT INTO "File" ("id", "postId", "index", "name", "storageKey", "size", "mimeType") VALUES ('f4', 'p2', 0, 'First_Shot.PNG', 'k4', 3, 'image/png')`,
];
const EXPECTED = [
  { id: "p1", totalSize: 5000000020, sortName: "holiday pics" },
  { id: "p2", totalSize: 10, sortName: "first_shot.png" },
  { id: "p3", totalSize: 0, sortName: "" },
];
const READ = `SELECT "id", "totalSize", "sortName" FROM "Post" ORDER BY "id"`;
const asRows = (rows: { id: string; totalSize: unknown; sortName: string }[]) =>
  rows.map((r) => ({ id: r.id, totalSize: Number(r.totalSize), sortName: r.sortName }));

describe("the gallery_sort migration fills the sort keys of existing posts", () => {
  it("sqlite", () => {
    const { before, target } = scripts("sqlite");
    const conn = new Database(":memory:");
    try {
      for (const sql of before) conn.exec(sql);
      for (const row of ROWS) conn.exec(row);
      conn.exec(target);
      conn.defaultSafeIntegers(true);
      expect(asRows(conn.prepare(READ).all() as { id: string; totalSize: bigint; sortName: string }[])).toEqual(EXPECTED);
    } finally {
      conn.close();
    }
  });

  it.runIf(process.env.TEST_DATABASE_URL)("postgres", { timeout: 60_000 }, async () => {
    const { before, target } = scripts("postgres");
    await withTempSchema(process.env.TEST_DATABASE_URL!, async (_url, schema) => {
      const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await client.connect();
      try {
        await client.query(`SET search_path TO "${schema}"`);
        for (const sql of [...before, ...ROWS, target]) await client.query(sql);
        expect(asRows((await client.query(READ)).rows)).toEqual(EXPECTED);
        // Names compare byte-wise whatever the database's locale, as on SQLite.
        const collation = await client.query(
          `SELECT collation_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'Post' AND column_name = 'sortName'`,
          [schema],
        );
        expect(collation.rows[0].collation_name).toBe("C");
      } finally {
        await client.end();
      }
    });
  });
});
