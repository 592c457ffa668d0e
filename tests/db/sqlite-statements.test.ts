/**
 * The prepared-statement cache on the SQLite connection (lib/db/sqlite-statements.ts):
 * statements are compiled once per SQL text, every use gets its own arguments, and the
 * cache stays bounded. On a real better-sqlite3 database, the way Prisma's adapter calls it.
 */
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { cachePreparedStatements, sqliteClientOf } from "@/lib/db/sqlite-statements";

type AdapterView = {
  bind(args: unknown[]): { reader: boolean; columns(): { name: string }[]; run(): { changes: number }; raw(): { all(): unknown[] } };
};

function counted(size?: number) {
  const db = new Database(":memory:");
  db.defaultSafeIntegers(true);
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)");
  let compiled = 0;
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    compiled += 1;
    return prepare(sql);
  }) as typeof db.prepare;
  cachePreparedStatements(db, size);
  const q = (sql: string) => (db.prepare as unknown as (sql: string) => AdapterView)(sql);
  return { db, q, compiled: () => compiled };
}

describe("cachePreparedStatements", () => {
  it("compiles a statement once and binds fresh arguments on every use", () => {
    const { q, compiled } = counted();
    const insert = "INSERT INTO t (id, name) VALUES (?, ?)";
    expect(q(insert).bind([1, "one"]).run().changes).toBe(1);
    expect(q(insert).bind([2, "two"]).run().changes).toBe(1);
    const select = "SELECT name FROM t WHERE id = ?";
    expect(q(select).bind([1]).raw().all()).toEqual([["one"]]);
    expect(q(select).bind([2]).raw().all()).toEqual([["two"]]);
    expect(q(select).bind([3]).raw().all()).toEqual([]);
    expect(compiled()).toBe(2);
    expect(q(select).bind([1]).reader).toBe(true);
    expect(q(insert).bind([3, "x"]).reader).toBe(false);
  });

  it("describes a statement's columns once, whatever the arguments", () => {
    const { q } = counted();
    const select = "SELECT id, name FROM t WHERE id = ?";
    const first = q(select).bind([1]).columns();
    expect(first.map((c) => c.name)).toEqual(["id", "name"]);
    expect(q(select).bind([2]).columns()).toBe(first);
  });

  it("a failed run leaves the statement usable", () => {
    const { q } = counted();
    const insert = "INSERT INTO t (id, name) VALUES (?, ?)";
    q(insert).bind([1, "a"]).run();
    expect(() => q(insert).bind([1, "dup"]).run()).toThrow(/UNIQUE/);
    expect(q(insert).bind([2, "b"]).run().changes).toBe(1);
  });

  it("keeps at most `size` statements, dropping the least recently used", () => {
    const { q, compiled } = counted(2);
    const a = "SELECT 1";
    const b = "SELECT 2";
    const c = "SELECT 3";
    q(a).bind([]).raw().all();
    q(b).bind([]).raw().all();
    q(a).bind([]).raw().all(); // a is now the most recent
    q(c).bind([]).raw().all(); // evicts b
    expect(compiled()).toBe(3);
    q(a).bind([]).raw().all();
    expect(compiled()).toBe(3);
    q(b).bind([]).raw().all();
    expect(compiled()).toBe(4);
  });

  it("finds the connection inside an adapter-shaped object only", () => {
    const db = new Database(":memory:");
    expect(sqliteClientOf({ client: db })).toBe(db);
    expect(sqliteClientOf({ client: { query: () => 1 } })).toBeNull();
    expect(sqliteClientOf({})).toBeNull();
  });
});
