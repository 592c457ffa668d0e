/** POST /posts/batch: many posts deleted or re-privacied in one request (docs/bulk-actions.md). */
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { BUCKETS } from "@/lib/ratelimit";
import { BATCH_MAX_ITEMS } from "@/lib/posts/batch";
import { storage } from "@/lib/storage";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestPost, createTestTeam, createTestUser, type TestPostOptions } from "../support/fixtures";
import { api, relay } from "../support/http";

useTestDatabase();
useCounterStore({ perTest: true });

const batch = (key: string, body: unknown, surface: "api" | "relay" = "api") =>
  (surface === "api" ? api : relay)("/posts/batch", { method: "POST", key, body });

async function posts(userId: string, n: number, options: TestPostOptions = {}) {
  const made = [];
  for (let i = 0; i < n; i++) made.push(await createTestPost(userId, options));
  await db().user.update({ where: { id: userId }, data: { uploadCount: { increment: n } } });
  return made;
}

const exists = async (key: string) => (await storage().stat(key)) !== null;
const uploadCount = async (id: string) => (await db().user.findUniqueOrThrow({ where: { id } })).uploadCount;

describe("POST /posts/batch, delete", () => {
  it("deletes 50 posts in one request: rows, stored files and the owner's count, one rate-limit hit", async () => {
    const user = await createTestUser();
    const made = await posts(user.id, 50, { files: 2 });
    const codes = made.map((p) => p.code);
    const reply = await batch(user.apiKey, { action: "delete", codes });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.action).toBe("delete");
    expect(reply.body.failed).toEqual([]);
    expect(reply.body.succeeded).toEqual(codes.map((code, index) => ({ index, code })));
    expect(await db().post.count({ where: { code: { in: codes } } })).toBe(0);
    expect(await db().file.count({ where: { postId: { in: made.map((p) => p.id) } } })).toBe(0);
    for (const key of made.flatMap((p) => p.keys)) expect(await exists(key), key).toBe(false);
    expect(await uploadCount(user.id)).toBe(0);
    // One request is one hit of its own bucket, whatever the number of posts.
    expect(reply.headers.get("x-ratelimit-limit")).toBe(String(BUCKETS.posts_batch.limit));
    expect(reply.headers.get("x-ratelimit-remaining")).toBe(String(BUCKETS.posts_batch.limit - 1));
  });

  it("reports each bad item by index and still does the good ones", async () => {
    const user = await createTestUser();
    const other = await createTestUser();
    const [mine, mine2] = await posts(user.id, 2);
    const [moderated] = await posts(user.id, 1, { moderated: true });
    const [theirsPublic] = await posts(other.id, 1, { privacy: "public" });
    const [theirsPrivate] = await posts(other.id, 1, { privacy: "private" });
    const codes = [mine.code, "not a code!", "Zz9Zz9Zz9Z", theirsPublic.code, theirsPrivate.code, moderated.code, mine2.code];
    const reply = await batch(user.apiKey, { action: "delete", codes });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.succeeded).toEqual([
      { index: 0, code: mine.code },
      { index: 6, code: mine2.code },
    ]);
    expect(reply.body.failed.map((f: { index: number; code: string; error: { type: string } }) => [f.index, f.code, f.error.type])).toEqual(
      [
        [1, "not a code!", "invalid_request"],
        [2, "Zz9Zz9Zz9Z", "not_found"],
        [3, theirsPublic.code, "forbidden"],
        // Someone else's private post is "not found", as on DELETE /posts/{code}: its existence is not revealed.
        [4, theirsPrivate.code, "not_found"],
        [5, moderated.code, "moderated"],
      ],
    );
    for (const f of reply.body.failed) expect(f.error.message).toEqual(expect.any(String));
    const left = await db().post.findMany({ where: { code: { in: codes } }, select: { code: true } });
    expect(left.map((p) => p.code).sort()).toEqual([theirsPublic.code, theirsPrivate.code, moderated.code].sort());
    expect(await uploadCount(other.id)).toBe(2);
  });

  it("two batches deleting the same posts at once: each post is deleted once and counted down once", async () => {
    const user = await createTestUser();
    const codes = (await posts(user.id, 20)).map((p) => p.code);
    const replies = await Promise.all([
      batch(user.apiKey, { action: "delete", codes }),
      batch(user.relayKey, { action: "delete", codes: [...codes].reverse() }, "relay"),
    ]);
    for (const r of replies) expect(r.status, r.text).toBe(200);
    const succeeded = replies.flatMap((r) => r.body.succeeded.map((s: { code: string }) => s.code));
    const failed = replies.flatMap((r) => r.body.failed);
    expect(succeeded.sort()).toEqual([...codes].sort());
    // The loser of each race is told the post is gone, never a 500.
    expect(failed).toHaveLength(20);
    for (const f of failed) expect(f.error.type).toBe("not_found");
    expect(await db().post.count({ where: { code: { in: codes } } })).toBe(0);
    expect(await uploadCount(user.id)).toBe(0);
  });
});

describe("POST /posts/batch, privacy", () => {
  it("sets the privacy of many posts, with the one-post rules: team posts stay private, restricted ones unlisted", async () => {
    const user = await createTestUser({ plan: "ultra" });
    const other = await createTestUser();
    const plain = await posts(user.id, 3, { privacy: "public" });
    const [restricted] = await posts(user.id, 1, { privacy: "private", restricted: true });
    const team = await createTestTeam(user.id);
    const [teamPost] = await posts(user.id, 1, { teamId: team.id });

    const toPrivate = await batch(user.apiKey, { action: "privacy", privacy: "private", codes: plain.map((p) => p.code) });
    expect(toPrivate.status, toPrivate.text).toBe(200);
    expect(toPrivate.body).toEqual({
      action: "privacy",
      succeeded: plain.map((p, index) => ({ index, code: p.code, privacy: "private" })),
      failed: [],
    });
    for (const p of plain) {
      expect((await db().post.findUniqueOrThrow({ where: { id: p.id } })).privacy).toBe("private");
      // Visible to others no more: the change reached the read path.
      expect((await api(`/posts/${p.code}`, { key: other.apiKey })).status).toBe(404);
    }

    const toPublic = await batch(user.apiKey, {
      action: "privacy",
      privacy: "public",
      codes: [plain[0].code, restricted.code, teamPost.code],
    });
    expect(toPublic.status, toPublic.text).toBe(200);
    expect(toPublic.body.succeeded).toEqual([
      { index: 0, code: plain[0].code, privacy: "public" },
      { index: 1, code: restricted.code, privacy: "unlisted" },
      { index: 2, code: teamPost.code, privacy: "private" },
    ]);
    expect((await api(`/posts/${plain[0].code}`, { key: other.apiKey })).status).toBe(200);
  });

  it("on Relay too", async () => {
    const user = await createTestUser();
    const [post] = await posts(user.id, 1, { privacy: "private" });
    const reply = await batch(user.relayKey, { action: "privacy", privacy: "unlisted", codes: [post.code] }, "relay");
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.succeeded).toEqual([{ index: 0, code: post.code, privacy: "unlisted" }]);
  });
});

describe("POST /posts/batch, the request as a whole", () => {
  it("400 naming the problem, and nothing changed: over the cap, empty, repeated codes, bad action or privacy", async () => {
    const user = await createTestUser();
    const [post] = await posts(user.id, 1);
    const many = [post.code, ...Array.from({ length: BATCH_MAX_ITEMS }, (_, i) => `code${i}x`)];
    const cases: [unknown, RegExp][] = [
      [{ action: "delete", codes: many }, new RegExp(`at most ${BATCH_MAX_ITEMS}`)],
      [{ action: "delete", codes: [] }, /at least one/],
      [{ action: "delete", codes: [post.code, post.code] }, /repeat/],
      [{ action: "delete", codes: post.code }, /codes/],
      [{ action: "delete", codes: [post.code, 7] }, /strings/],
      [{ action: "destroy", codes: [post.code] }, /action must be delete or privacy/],
      [{ codes: [post.code] }, /action/],
      [{ action: "privacy", codes: [post.code] }, /privacy/],
      [{ action: "privacy", privacy: "secret", codes: [post.code] }, /privacy must be public, unlisted or private/],
    ];
    for (const [body, message] of cases) {
      const reply = await batch(user.apiKey, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.error.type).toBe("invalid_request");
      expect(reply.body.error.message, JSON.stringify(body)).toMatch(message);
    }
    const garbage = await api("/posts/batch", {
      method: "POST",
      key: user.apiKey,
      rawBody: "{nope",
      headers: { "content-type": "application/json" },
    });
    expect(garbage.status).toBe(400);
    expect(await db().post.count({ where: { id: post.id } })).toBe(1);
  });

  it("keys: gallery access needed (403); a team key acts on its team's posts only", async () => {
    const user = await createTestUser({ plan: "ultra" });
    const [personal] = await posts(user.id, 1, { privacy: "public" });
    const team = await createTestTeam(user.id);
    const teamPosts = await posts(user.id, 2, { teamId: team.id });

    const noGallery = await batch(user.uploadOnlyKey, { action: "delete", codes: [personal.code] });
    expect(noGallery.status).toBe(403);
    expect(noGallery.body.error.type).toBe("forbidden");

    const byTeam = await batch(team.key, { action: "delete", codes: [personal.code, ...teamPosts.map((p) => p.code)] });
    expect(byTeam.status, byTeam.text).toBe(200);
    expect(byTeam.body.succeeded.map((s: { code: string }) => s.code)).toEqual(teamPosts.map((p) => p.code));
    expect(byTeam.body.failed).toMatchObject([{ index: 0, code: personal.code, error: { type: "forbidden" } }]);
    expect(await db().post.count({ where: { id: personal.id } })).toBe(1);
  });

  it(`is limited to ${BUCKETS.posts_batch.limit} requests a minute in its own bucket, apart from single deletes`, async () => {
    const user = await createTestUser();
    const [post] = await posts(user.id, 1);
    for (let i = 0; i < BUCKETS.posts_batch.limit; i++) {
      const reply = await batch(user.apiKey, { action: "privacy", privacy: "unlisted", codes: [post.code] });
      expect(reply.status, reply.text).toBe(200);
    }
    const refused = await batch(user.apiKey, { action: "delete", codes: [post.code] });
    expect(refused.status).toBe(429);
    expect(refused.body.error.type).toBe("rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await db().post.count({ where: { id: post.id } })).toBe(1);
    // The one-post delete still has its whole budget.
    const single = await api(`/posts/${post.code}`, { method: "DELETE", key: user.apiKey });
    expect(single.status).toBe(200);
    expect(single.headers.get("x-ratelimit-remaining")).toBe(String(BUCKETS.posts_delete.limit - 1));
  });

  it("is in the OpenAPI documents with its body schema and rate limit", async () => {
    for (const get of [api, relay]) {
      const doc = (await get("/openapi.json")).body;
      const op = doc.paths["/posts/batch"].post;
      expect(op.operationId).toBe("batchPosts");
      expect(JSON.stringify(op.requestBody)).toContain("privacy");
      expect(op["x-rate-limit"]).toBeDefined();
    }
  });
});
