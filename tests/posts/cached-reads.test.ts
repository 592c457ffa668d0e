/**
 * GET /posts/{code} answered from the read caches without an await (lib/http/dispatch.ts,
 * `answerFromCache`): the same body as the full pipeline, the same rate limit counted once
 * per request, and nothing cached outlives a change. With a Redis counter store every
 * request takes the full pipeline (counting needs the server), and the same rules hold.
 */
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { BUCKETS } from "@/lib/ratelimit/buckets";
import { useCounterStore } from "../support/counters";
import { useTestDatabase } from "../support/db";
import { createTestPost, createTestUser } from "../support/fixtures";
import { api } from "../support/http";

useTestDatabase();
useCounterStore({ perTest: true });

const inProcessCounters = !process.env.TEST_REDIS_URL;
const hit = (reply: { headers: Headers }) => reply.headers.get("x-mediahost-cache") === "hit";

describe("GET /posts/{code} from the read caches", () => {
  it("answers the second read from memory: same body, rate-limit headers moving on", async () => {
    const owner = await createTestUser();
    const reader = await createTestUser();
    const post = await createTestPost(owner.id, { privacy: "public", title: "cached" });
    const first = await api(`/posts/${post.code}`, { key: reader.apiKey });
    const second = await api(`/posts/${post.code}`, { key: reader.apiKey });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(hit(first)).toBe(false);
    expect(hit(second)).toBe(inProcessCounters);
    expect(second.body).toEqual(first.body);
    expect(Number(second.headers.get("x-ratelimit-remaining"))).toBe(Number(first.headers.get("x-ratelimit-remaining")) - 1);
    expect(second.headers.get("request-id")).toMatch(/^[0-9a-f]{32}$/);
    expect(second.headers.get("request-id")).not.toBe(first.headers.get("request-id"));
    // The owner's view (moderated/restricted shown) is cached apart from a reader's.
    const mine = await api(`/posts/${post.code}`, { key: owner.apiKey });
    const mineAgain = await api(`/posts/${post.code}`, { key: owner.apiKey });
    expect(mineAgain.body).toEqual(mine.body);
    expect(mineAgain.body.post).toHaveProperty("moderated", false);
    expect(second.body.post).not.toHaveProperty("moderated");
  });

  it("counts every cached read against the limit: the one past it is 429 with Retry-After", async () => {
    const owner = await createTestUser();
    const reader = await createTestUser();
    const post = await createTestPost(owner.id, { privacy: "public" });
    const limit = BUCKETS.posts_get.limit;
    for (let i = 0; i < limit; i++) {
      const r = await api(`/posts/${post.code}`, { key: reader.apiKey });
      expect(r.status).toBe(200);
      expect(Number(r.headers.get("x-ratelimit-remaining"))).toBe(limit - i - 1);
    }
    const over = await api(`/posts/${post.code}`, { key: reader.apiKey });
    expect(over.status).toBe(429);
    expect(over.body.error.type).toBe("rate_limited");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(hit(over)).toBe(false);
  });

  it("a post made private, a like, a suspension and a revoked key are seen on the next read", async () => {
    const owner = await createTestUser();
    const reader = await createTestUser();
    const post = await createTestPost(owner.id, { privacy: "public" });
    const read = () => api(`/posts/${post.code}`, { key: reader.apiKey });
    await read();
    expect(hit(await read())).toBe(inProcessCounters);

    await db().like.create({ data: { postId: post.id, userId: reader.id } });
    const liked = await read();
    expect(liked.body.post.liked).toBe(true);

    await db().post.update({ where: { id: post.id }, data: { privacy: "private" } });
    expect((await read()).status).toBe(404);
    await db().post.update({ where: { id: post.id }, data: { privacy: "public" } });
    await read();

    await db().user.update({ where: { id: reader.id }, data: { suspended: true } });
    expect((await read()).status).toBe(403);
    await db().user.update({ where: { id: reader.id }, data: { suspended: false } });
    expect((await read()).status).toBe(200);

    await db().app.updateMany({ where: { userId: reader.id }, data: { revokedAt: new Date() } });
    expect((await read()).status).toBe(401);
  });

  it("a key the cache knows to be unknown is still 401 from the full pipeline", async () => {
    const owner = await createTestUser();
    const post = await createTestPost(owner.id, { privacy: "public" });
    const bogus = `mh_app_${"x".repeat(40)}`;
    expect((await api(`/posts/${post.code}`, { key: bogus })).status).toBe(401);
    expect((await api(`/posts/${post.code}`, { key: bogus })).status).toBe(401);
  });
});
