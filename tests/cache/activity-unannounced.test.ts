/**
 * Key activity moves no change number (lib/db/unannounced.ts): with thousands of keys in
 * use its batched writes land twice a second, and each used to empty every read cache.
 * Every other write, to the same tables too, still does at once. Runs on SQLite, and on
 * PostgreSQL with TEST_DATABASE_URL (where the migration `activity_unannounced` narrows the
 * notify triggers to the other columns).
 */
import Database from "better-sqlite3";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { flushActivity, markUsed } from "@/lib/auth/activity";
import { authenticateKey } from "@/lib/auth/authenticate";
import { issueKey } from "@/lib/crypto/keys";
import { changeVersion, db } from "@/lib/db/client";
import { stampActivity } from "@/lib/db/unannounced";
import { ANONYMOUS, readPost } from "@/lib/posts/read";
import { createTestPost, createTestUser } from "../support/fixtures";
import { useTestDatabase, settledVersion } from "../support/db";

const database = useTestDatabase();

/** Runs SQL on a connection of its own (as the admin CLI would) and answers its rows. */
async function elsewhere(sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  const { config } = database();
  if (config.provider === "sqlite") {
    const conn = new Database(config.url);
    try {
      const statement = conn.prepare(sql.replace(/\$\d+/g, "?"));
      if (statement.reader) return statement.all(...params) as Record<string, unknown>[];
      statement.run(...params);
      return [];
    } finally {
      conn.close();
    }
  }
  const url = new URL(config.url);
  const schema = url.searchParams.get("schema");
  url.searchParams.delete("schema");
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    if (schema) await client.query(`SET search_path TO "${schema}"`);
    return (await client.query(sql, params)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

/** An app key never used before: its first use is marked for the next batch. */
async function freshAppKey(userId: string): Promise<{ id: string; key: string }> {
  const k = issueKey("app");
  const app = await db().app.create({ data: { userId, name: "fresh", keyHash: k.hash, keyHint: k.hint, galleryAccess: true } });
  return { id: app.id, key: k.key };
}

const lastUsed = async (appId: string): Promise<Date | null> => (await db().app.findUniqueOrThrow({ where: { id: appId } })).lastUsedAt;

describe("key activity and the read caches", () => {
  it("an activity batch is written and leaves every cache entry current", async () => {
    const owner = await createTestUser();
    const post = await createTestPost(owner.id, { privacy: "public" });
    const app = await freshAppKey(owner.id);
    const relay = await createTestUser();

    await settledVersion();
    const principal = await authenticateKey(app.key, "api-key");
    const relayPrincipal = await authenticateKey(relay.relayKey, "relay-key");
    const { post: record } = await readPost(post.code, ANONYMOUS);
    const before = await settledVersion();

    markUsed(relayPrincipal!);
    await flushActivity();
    expect(await lastUsed(app.id)).not.toBeNull();
    expect(await settledVersion()).toBe(before);
    // The very same cached objects: hits, not reads of equal rows.
    expect(await authenticateKey(app.key, "api-key")).toBe(principal);
    expect((await readPost(post.code, ANONYMOUS)).post).toBe(record);
  });

  it("a Relay session's activity moves nothing either", async () => {
    const user = await createTestUser();
    const principal = await authenticateKey(user.relayKey, "relay-key");
    expect(principal?.kind).toBe("session");
    const session = await db().relaySession.findFirstOrThrow({ where: { userId: user.id } });
    const before = await settledVersion();
    const at = new Date(Date.now() + 60_000);
    expect(await stampActivity("relaySession", [session.id], at)).toBe(true);
    expect((await db().relaySession.findUniqueOrThrow({ where: { id: session.id } })).lastActiveAt.getTime()).toBe(at.getTime());
    expect(await settledVersion()).toBe(before);
  });

  it("any other write to the same table still moves the number, here and elsewhere", async () => {
    const owner = await createTestUser();
    const app = await freshAppKey(owner.id);
    expect((await authenticateKey(app.key, "api-key"))?.kind).toBe("app");
    await flushActivity();

    const before = await settledVersion();
    await db().app.update({ where: { id: app.id }, data: { name: "renamed" } });
    expect(changeVersion()).not.toBe(before);

    const second = await settledVersion();
    // Elsewhere, an UPDATE that sets the activity column and another one.
    await elsewhere(`UPDATE "App" SET "lastUsedAt" = $1, "revokedAt" = $2 WHERE "id" = $3`, [
      new Date().toISOString(),
      new Date().toISOString(),
      app.id,
    ]);
    const revoked = async () => (await settledVersion()) !== second && (await authenticateKey(app.key, "api-key")) === null;
    expect(await revoked()).toBe(true);
  });

  it("an activity write by another process is still seen (it may be anything)", async () => {
    if (database().config.provider !== "sqlite") return; // PostgreSQL: the trigger test below decides
    const owner = await createTestUser();
    const before = await settledVersion();
    await elsewhere(`UPDATE "App" SET "lastUsedAt" = $1 WHERE "userId" = $2`, [new Date().toISOString(), owner.id]);
    // data_version is read at most once per millisecond.
    await expect.poll(() => changeVersion(), { timeout: 3000 }).not.toBe(before);
  });

  it("PostgreSQL: the notify triggers of App and RelaySession cover every column but the activity one", async () => {
    if (database().config.provider !== "postgres") return;
    for (const [table, activity] of [
      ["App", "lastUsedAt"],
      ["RelaySession", "lastActiveAt"],
    ] as const) {
      const columns = await elsewhere(
        `SELECT attname FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped ORDER BY attname`,
        [`"${table}"`],
      );
      const watched = await elsewhere(
        `SELECT a.attname FROM pg_trigger t JOIN pg_attribute a ON a.attrelid = t.tgrelid AND a.attnum = ANY (t.tgattr::int2[])
         WHERE t.tgrelid = to_regclass($1) AND t.tgname = $2 ORDER BY a.attname`,
        [`"${table}"`, `${table}_notify_change`],
      );
      const expected = columns.map((c) => c.attname).filter((name) => name !== activity);
      expect(watched.map((c) => c.attname)).toEqual(expected);
    }
  });

  it("SQLite: a batch that finds the write lock taken is kept and written later, without blocking", async () => {
    if (database().config.provider !== "sqlite") return;
    const owner = await createTestUser();
    const app = await freshAppKey(owner.id);
    await flushActivity();
    const holder = new Database(database().config.url);
    try {
      holder.exec("BEGIN IMMEDIATE");
      expect(await authenticateKey(app.key, "api-key")).not.toBeNull();
      await flushActivity();
      expect(await lastUsed(app.id)).toBeNull();
      holder.exec("COMMIT");
    } finally {
      if (holder.inTransaction) holder.exec("ROLLBACK");
      holder.close();
    }
    await expect.poll(() => lastUsed(app.id), { timeout: 5000 }).not.toBeNull();
  });
});
