/**
 * Read caches are never older than the last committed write, whoever made it
 * (lib/db/change-signal.ts, lib/cache/versioned.ts): this process's writes, another
 * connection's (the admin CLI, another instance) on SQLite through `PRAGMA data_version`,
 * on PostgreSQL through the `mediahost_changes` notifications of the migration's triggers.
 * Runs on SQLite, and on PostgreSQL with TEST_DATABASE_URL.
 */
import Database from "better-sqlite3";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { authenticateKey } from "@/lib/auth/authenticate";
import { VersionedCache } from "@/lib/cache/versioned";
import { changeVersion, db } from "@/lib/db/client";
import { ANONYMOUS, likedBy, readPost } from "@/lib/posts/read";
import { createTestPost, createTestUser } from "../support/fixtures";
import { useTestDatabase, settledVersion } from "../support/db";

const database = useTestDatabase();

/** Runs SQL on a connection of its own, outside this process's Prisma client (as the CLI would). */
async function writeElsewhere(sql: string, params: unknown[] = []): Promise<void> {
  const { config } = database();
  if (config.provider === "sqlite") {
    const conn = new Database(config.url);
    try {
      conn.prepare(sql.replace(/\$\d+/g, "?")).run(...params);
    } finally {
      conn.close();
    }
    return;
  }
  const url = new URL(config.url);
  const schema = url.searchParams.get("schema");
  url.searchParams.delete("schema");
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    if (schema) await client.query(`SET search_path TO "${schema}"`);
    await client.query(sql, params);
  } finally {
    await client.end();
  }
}

/** SQLite sees another connection's commit within a millisecond; a PostgreSQL notification a moment later. */
async function eventually<T>(read: () => Promise<T>, expected: T, timeoutMs = 3000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let value = await read();
  while (value !== expected && Date.now() < until) {
    await new Promise((done) => setTimeout(done, 20));
    value = await read();
  }
  return value;
}

describe("the change number", () => {
  it("stays put while nothing is written, so caches hit", async () => {
    const before = await settledVersion();
    await db().user.findMany({ take: 1 });
    expect(changeVersion()).toBe(before);
  });

  it("moves as soon as this process commits a write", async () => {
    const before = await settledVersion();
    await createTestUser();
    expect(changeVersion()).not.toBe(before);
  });

  it("moves when another connection commits, not when it only reads", async () => {
    const user = await createTestUser();
    const before = await settledVersion();
    await writeElsewhere(`SELECT 1`);
    expect(changeVersion()).toBe(before);
    await writeElsewhere(`UPDATE "User" SET "bio" = $1 WHERE "id" = $2`, ["changed elsewhere", user.id]);
    expect(await eventually(async () => changeVersion() !== before, true)).toBe(true);
  });
});

describe("cached reads", () => {
  it("a key revoked by another process stops working", async () => {
    const user = await createTestUser();
    expect((await authenticateKey(user.apiKey, "api-key"))?.kind).toBe("app");
    expect((await authenticateKey(user.apiKey, "api-key"))?.kind).toBe("app");
    await writeElsewhere(`UPDATE "App" SET "revokedAt" = $1 WHERE "userId" = $2`, [new Date().toISOString(), user.id]);
    expect(await eventually(() => authenticateKey(user.apiKey, "api-key"), null)).toBeNull();
  });

  it("a suspension by another process shows on the next request", async () => {
    const user = await createTestUser();
    expect((await authenticateKey(user.relayKey, "relay-key"))?.kind).toBe("session");
    await writeElsewhere(`UPDATE "User" SET "suspended" = $1 WHERE "id" = $2`, [
      database().config.provider === "sqlite" ? 1 : true,
      user.id,
    ]);
    const suspended = async () => {
      const principal = await authenticateKey(user.relayKey, "relay-key");
      return principal?.kind === "session" && principal.user.suspended;
    };
    expect(await eventually(suspended, true)).toBe(true);
  });

  it("a post made private elsewhere is hidden at once; a like elsewhere shows", async () => {
    const owner = await createTestUser();
    const reader = await createTestUser();
    const post = await createTestPost(owner.id, { privacy: "public" });
    expect((await readPost(post.code, ANONYMOUS)).post.privacy).toBe("public");
    expect(await likedBy(post.id, reader.id)).toBe(false);

    await writeElsewhere(`INSERT INTO "Like" ("postId", "userId", "createdAt") VALUES ($1, $2, $3)`, [
      post.id,
      reader.id,
      new Date().toISOString(),
    ]);
    expect(await eventually(() => likedBy(post.id, reader.id), true)).toBe(true);

    await writeElsewhere(`UPDATE "Post" SET "privacy" = 'private' WHERE "id" = $1`, [post.id]);
    const hidden = () =>
      readPost(post.code, ANONYMOUS).then(
        () => false,
        () => true,
      );
    expect(await eventually(hidden, true)).toBe(true);
  });

  it("cached records are frozen: a request cannot change what the next one reads", async () => {
    const owner = await createTestUser();
    const post = await createTestPost(owner.id);
    const { post: record } = await readPost(post.code, ANONYMOUS);
    expect(() => {
      (record as { title: string | null }).title = "changed";
    }).toThrow(TypeError);
    const principal = await authenticateKey(owner.apiKey, "api-key");
    expect(() => {
      (principal as { kind: string }).kind = "team";
    }).toThrow(TypeError);
  });
});

describe("VersionedCache", () => {
  it("loads once per version, again when the version moves or the entry expires, and stays bounded", async () => {
    let version = 1;
    let loads = 0;
    const cache = new VersionedCache<string, number>({ name: "test", maxEntries: 2, ttlMs: 50 }, () => version);
    const load = async () => ++loads;
    expect(await cache.get("a", load)).toBe(1);
    expect(await cache.get("a", load)).toBe(1);
    version = 2;
    expect(await cache.get("a", load)).toBe(2);
    await new Promise((done) => setTimeout(done, 60));
    expect(await cache.get("a", load)).toBe(3);
    await cache.get("b", load);
    await cache.get("c", load);
    expect(cache.size).toBe(2);
    // "a" was the least recently used and went first.
    expect(await cache.get("a", load)).toBe(6);
  });

  it("stays under its weight bound, dropping the least recently used, and refuses what alone is too heavy", async () => {
    const cache = new VersionedCache<string, string>(
      { name: "test", maxEntries: 100, ttlMs: 60_000, maxWeight: 10, weigh: (v) => v.length },
      () => 1,
    );
    await cache.get("a", async () => "aaaa");
    await cache.get("b", async () => "bbbb");
    await cache.get("a", async () => "reloaded");
    await cache.get("c", async () => "cccc");
    expect(cache.size).toBe(2);
    expect(await cache.get("b", async () => "reloaded")).toBe("reloaded");
    expect(await cache.get("big", async () => "x".repeat(11))).toBe("x".repeat(11));
    expect(await cache.get("big", async () => "again")).toBe("again");
  });

  it("a load that overlaps a change is not served afterwards", async () => {
    let version = 1;
    const cache = new VersionedCache<string, string>({ name: "test", maxEntries: 10, ttlMs: 60_000 }, () => version);
    await cache.get("k", async () => {
      version = 2; // a write committed while the load ran
      return "old";
    });
    expect(await cache.get("k", async () => "new")).toBe("new");
  });
});
