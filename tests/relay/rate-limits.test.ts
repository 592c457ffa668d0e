/**
 * Every Relay social rate limit counted down to its 429. Requests are made cheap on
 * purpose (a malformed id or query is a 400 after the limit was counted), so the counts
 * are exact without touching much of the database.
 */
import { describe, expect, it } from "vitest";
import { BUCKETS, type BucketName } from "@/lib/ratelimit";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser, type TestUser } from "../support/fixtures";
import { relay, type Reply } from "../support/http";
import { expectError } from "./helpers";

useTestDatabase();
useCounterStore({ perTest: true });

type Call = (who: TestUser) => Promise<Reply>;
const call =
  (method: string, path: string, body?: unknown): Call =>
  (who) =>
    relay(path, { method, key: who.relayKey, body });

/** Makes `limit` calls (round-robin over `calls`), each admitted, then one more: 429. */
async function exhaust(bucket: BucketName, calls: Call[], who: TestUser): Promise<void> {
  const { limit } = BUCKETS[bucket];
  for (let i = 1; i <= limit; i++) {
    const reply = await calls[(i - 1) % calls.length](who);
    expect(reply.status, `${bucket} call ${i}: ${reply.text}`).not.toBe(429);
    expect(reply.headers.get("x-ratelimit-limit")).toBe(String(limit));
    expect(reply.headers.get("x-ratelimit-remaining")).toBe(String(limit - i));
  }
  for (const c of calls) {
    const refused = await c(who);
    expectError(refused, 429, "rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  }
}

const BAD = "bad!id";

describe("Relay social rate limits", () => {
  it("likes: 30 a minute shared by post likes and comment likes, on and off", async () => {
    const who = await createTestUser();
    await exhaust(
      "likes",
      [
        call("POST", `/posts/${BAD}/like`),
        call("DELETE", `/posts/${BAD}/like`),
        call("POST", `/comments/${BAD}/like`),
        call("DELETE", `/comments/${BAD}/like`),
      ],
      who,
    );
    expect(BUCKETS.likes.limit).toBe(30);
  });

  it("comments_write: 5 a minute shared by create and delete", async () => {
    const who = await createTestUser();
    await exhaust("comments_write", [call("POST", `/posts/${BAD}/comments`, { body: "x" }), call("DELETE", `/comments/${BAD}`)], who);
    expect(BUCKETS.comments_write.limit).toBe(5);
  });

  it("follow and unfollow: 30 each; removing a follower counts as an unfollow", async () => {
    const who = await createTestUser();
    await exhaust("follow", [call("POST", `/users/${BAD}/follow`)], who);
    // The unfollow bucket is untouched by follows.
    await exhaust("unfollow", [call("DELETE", `/users/${BAD}/follow`), call("DELETE", `/users/@me/followers/${BAD}`)], who);
    expect([BUCKETS.follow.limit, BUCKETS.unfollow.limit]).toEqual([30, 30]);
  });

  it("followers list and following list: 30 each", async () => {
    const who = await createTestUser();
    await exhaust("followers_list", [call("GET", `/users/${BAD}/followers`)], who);
    await exhaust("following_list", [call("GET", `/users/${BAD}/following`)], who);
    expect([BUCKETS.followers_list.limit, BUCKETS.following_list.limit]).toEqual([30, 30]);
  });

  it("block and unblock: 10 each; the blocks list is not limited", async () => {
    const who = await createTestUser();
    await exhaust("block", [call("POST", `/users/${BAD}/block`)], who);
    await exhaust("unblock", [call("DELETE", `/users/${BAD}/block`)], who);
    expect([BUCKETS.block.limit, BUCKETS.unblock.limit]).toEqual([10, 10]);
    const list = await relay("/users/@me/blocks", { key: who.relayKey });
    expect(list.status).toBe(200);
    expect(list.headers.get("x-ratelimit-limit")).toBeNull();
  });

  it("notifications list, unread count and mark read: 60 each", async () => {
    const who = await createTestUser();
    await exhaust("notifications_list", [call("GET", "/notifications?limit=0")], who);
    await exhaust("notifications_unread", [call("GET", "/notifications/unread-count")], who);
    await exhaust("notifications_read", [call("POST", "/notifications/read", { ids: "all" })], who);
    expect([BUCKETS.notifications_list.limit, BUCKETS.notifications_unread.limit, BUCKETS.notifications_read.limit]).toEqual([60, 60, 60]);
  });

  it("discover and the comments list carry no limit", async () => {
    const who = await createTestUser();
    for (const path of ["/discover", `/posts/${BAD}/comments`]) {
      const reply = await relay(path, { key: who.relayKey });
      expect(reply.headers.get("x-ratelimit-limit"), path).toBeNull();
    }
  });
});
