/**
 * Key activity ("last used") is written in batches (lib/auth/activity.ts): every committed
 * write makes every read cache a miss, so thousands of keys used for the first time in a
 * minute must not mean thousands of writes. Runs on SQLite, and on PostgreSQL with
 * TEST_DATABASE_URL.
 */
import { describe, expect, it } from "vitest";
import { FLUSH_DELAY_MS, flushActivity } from "@/lib/auth/activity";
import { authenticateKey } from "@/lib/auth/authenticate";
import { issueKey } from "@/lib/crypto/keys";
import { db } from "@/lib/db/client";
import { createTestUser } from "../support/fixtures";
import { useTestDatabase } from "../support/db";

useTestDatabase();

describe("key activity", () => {
  it("40 keys used at once are recorded with a couple of writes, not 40", async () => {
    const user = await createTestUser();
    const keys = Array.from({ length: 40 }, () => issueKey("app"));
    await db().app.createMany({ data: keys.map((k, i) => ({ userId: user.id, name: `k${i}`, keyHash: k.hash, keyHint: k.hint })) });
    await flushActivity();
    const started = Date.now();
    const principals = await Promise.all(keys.map((k) => authenticateKey(k.key, "api-key")));
    const periods = Math.ceil((Date.now() - started) / FLUSH_DELAY_MS) + 1;
    expect(principals.every((p) => p?.kind === "app")).toBe(true);
    await flushActivity();
    const used = await db().app.findMany({ where: { userId: user.id }, select: { lastUsedAt: true } });
    expect(used.every((a) => a.lastUsedAt !== null)).toBe(true);
    // Written together: one statement stamps them all with the same time (one write per
    // key, as before, gave each its own, each a commit that emptied every read cache).
    // A slow machine may spread the 40 look-ups over several batch periods: at most one
    // write per period.
    expect(periods).toBeLessThan(20);
    expect(new Set(used.map((a) => a.lastUsedAt!.getTime())).size).toBeLessThanOrEqual(periods);
  });

  it("a key's use is written without being awaited, within the batch delay", async () => {
    const user = await createTestUser();
    const k = issueKey("app");
    const app = await db().app.create({ data: { userId: user.id, name: "one", keyHash: k.hash, keyHint: k.hint } });
    await authenticateKey(k.key, "api-key");
    await expect
      .poll(async () => (await db().app.findUniqueOrThrow({ where: { id: app.id } })).lastUsedAt, { timeout: 5000 })
      .not.toBeNull();
  });
});
