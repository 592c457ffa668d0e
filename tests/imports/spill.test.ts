/**
 * An import's summary lists every skipped item without holding the list (docs/migrate.md,
 * "Memory"): past MEMORY_ITEMS the list lives in a file under DATA_DIR/tmp, and the CLI
 * writes it out item by item (lib/cli/json-out.ts), the same JSON as JSON.stringify would.
 */
import { existsSync, readdirSync } from "node:fs";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { runAdmin } from "@/lib/cli/admin";
import { writeJson } from "@/lib/cli/json-out";
import { tempRoot } from "@/lib/files/temp";
import { MEMORY_ITEMS, SpillList } from "@/lib/imports/spill";
import { useCounterStore } from "../support/counters";
import { useTestDatabase } from "../support/db";
import { createTestUser } from "../support/fixtures";
import { useScratchDir } from "../support/media";

useTestDatabase();
useCounterStore();
const scratch = useScratchDir();

async function written(value: unknown): Promise<string> {
  let out = "";
  await writeJson(value, async (text) => {
    out += text;
  });
  return out;
}

const tempEntries = () => (existsSync(tempRoot()) ? readdirSync(tempRoot()) : []);

describe("SpillList", () => {
  it("holds a few items, moves to a file past its bound, reads back in order, and removes its file", async () => {
    const before = tempEntries();
    const list = new SpillList<{ n: number; s: string }>(3);
    for (let n = 0; n < 3; n++) list.push({ n, s: `é ${n}\n"` });
    expect(list.spilled).toBe(false);
    for (let n = 3; n < 10; n++) list.push({ n, s: `é ${n}\n"` });
    expect(list.spilled).toBe(true);
    expect(list.length).toBe(10);
    expect(tempEntries().length).toBe(before.length + 1);
    const expected = Array.from({ length: 10 }, (_, n) => ({ n, s: `é ${n}\n"` }));
    const read: unknown[] = [];
    for await (const item of list) read.push(item);
    expect(read).toEqual(expected);
    expect(list.toJSON()).toEqual(expected);
    list.dispose();
    expect(tempEntries()).toEqual(before);
  });
});

describe("writeJson", () => {
  it("writes what JSON.stringify writes, a streamed list item by item", async () => {
    const list = new SpillList<string>(1);
    for (const s of ["a", "b\u2028", "c"]) list.push(s);
    const value = {
      a: 1,
      b: 'x"y',
      gone: undefined,
      when: new Date(0),
      nested: { list, empty: new SpillList<string>(), arr: [1, undefined, null, { k: true }], big: "z".repeat(70_000) },
    };
    const text = await written(value);
    expect(text).toBe(JSON.stringify(value));
    expect(JSON.parse(text).nested.list).toEqual(["a", "b\u2028", "c"]);
    list.dispose();
  });
});

describe("an import that skips more than it can hold", () => {
  it("lists every skipped item in its summary, and leaves no file behind", async () => {
    const user = await createTestUser();
    const path = scratch("many.sqlite");
    const db = new Database(path);
    db.exec(`
      CREATE TABLE "users" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "uuid" TEXT NOT NULL, "username" TEXT NOT NULL, "password" TEXT NOT NULL);
      CREATE TABLE "files" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "uuid" TEXT NOT NULL, "userId" INTEGER, "name" TEXT NOT NULL,
        "original" TEXT NOT NULL, "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, "quarantine" BOOLEAN NOT NULL DEFAULT false);
    `);
    const insert = db.prepare(`INSERT INTO "files" ("uuid", "userId", "name", "original", "createdAt") VALUES (?, NULL, ?, ?, ?)`);
    const n = MEMORY_ITEMS + 7;
    db.transaction(() => {
      for (let i = 0; i < n; i++) insert.run(`f-${i}`, `Miss${i}.png`, `missing ${i}.png`, 1_650_000_000_000 + i);
    })();
    db.close();
    const before = tempEntries();
    const { exitCode, output } = await runAdmin(
      ["import", "chibisafe", "--from", path, "--uploads", scratch("none"), "--old-host", "many.old.example", "--user", user.username],
      { log: () => {} },
    );
    expect(exitCode, JSON.stringify(output)).toBe(0);
    const skipped = output.skipped as SpillList<{ item: string; reason: string }>;
    expect(skipped.spilled).toBe(true);
    const summary = JSON.parse(await written(output)) as { skipped: { item: string; reason: string }[]; files: { imported: number } };
    expect(summary.files.imported).toBe(0);
    expect(summary.skipped).toHaveLength(n);
    expect(summary.skipped[n - 1]).toEqual({
      item: `file file:${n} (missing ${n - 1}.png)`,
      reason: expect.stringMatching(/missing on disk/),
    });
    skipped.dispose();
    expect(tempEntries()).toEqual(before);
  });
});
