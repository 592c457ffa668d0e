/**
 * The cached reply of GET /api/posts/{code} (lib/presenters/posts.ts cachedPostReply, its JSON
 * kept by lib/http/dispatch.ts): served again only while it is right. A like, an edit, the
 * owner's own fields and signed links must show at once (docs/performance.md, "The cached
 * post reply kept, cheaper cache hits and key hashes").
 */
import { describe, expect, it } from "vitest";
import { CACHE_HEADER } from "@/lib/http/respond";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestPost, createTestUser } from "../support/fixtures";
import { api, relay } from "../support/http";

useTestDatabase();
useCounterStore({ perTest: true });

/**
 * Reads until the reply comes from the caches (the first read fills them; on PostgreSQL the
 * notice of the last write may empty them once more, a moment later), then once again.
 */
async function cachedRead(code: string, key: string) {
  // With Redis counters every read takes the full pipeline (docs/caching.md); the rules hold.
  const hit = process.env.TEST_REDIS_URL ? null : "hit";
  let first = await api(`/posts/${code}`, { key });
  for (let tries = 0; first.headers.get(CACHE_HEADER) !== hit && tries < 50; tries++) {
    await new Promise((done) => setTimeout(done, 20));
    first = await api(`/posts/${code}`, { key });
  }
  const second = await api(`/posts/${code}`, { key });
  expect(first.headers.get(CACHE_HEADER)).toBe(hit);
  expect(second.headers.get(CACHE_HEADER)).toBe(hit);
  expect(second.text).toBe(first.text);
  expect(second.headers.get("request-id")).not.toBe(first.headers.get("request-id"));
  return second;
}

describe("the cached post reply", () => {
  it("shows the viewer's like, an edit and the owner's fields at once", async () => {
    const owner = await createTestUser();
    const reader = await createTestUser();
    const { code } = await createTestPost(owner.id, { privacy: "public", title: "Before" });

    const plain = await cachedRead(code, reader.apiKey);
    expect(plain.body.post).toMatchObject({ title: "Before", liked: false, like_count: 0 });
    expect(plain.body.post).not.toHaveProperty("moderated");
    const own = await cachedRead(code, owner.apiKey);
    expect(own.body.post).toMatchObject({ title: "Before", moderated: false, password_protected: false });

    expect((await relay(`/posts/${code}/like`, { method: "POST", key: reader.relayKey })).status).toBe(200);
    const liked = await cachedRead(code, reader.apiKey);
    expect(liked.body.post).toMatchObject({ liked: true, like_count: 1 });
    // The owner has not liked it: the reader's reply is not theirs.
    expect((await cachedRead(code, owner.apiKey)).body.post).toMatchObject({ liked: false, like_count: 1, moderated: false });

    expect((await api(`/posts/${code}`, { method: "PATCH", key: owner.apiKey, body: { title: "After" } })).status).toBe(200);
    expect((await cachedRead(code, reader.apiKey)).body.post).toMatchObject({ title: "After", liked: true });

    expect((await relay(`/posts/${code}/like`, { method: "DELETE", key: reader.relayKey })).status).toBe(200);
    expect((await cachedRead(code, reader.apiKey)).body.post).toMatchObject({ liked: false, like_count: 0 });
  });

  it("hides a post made private at once, and signs its links anew for the owner", async () => {
    const owner = await createTestUser();
    const reader = await createTestUser();
    const { code } = await createTestPost(owner.id, { privacy: "public" });
    const open = await cachedRead(code, reader.apiKey);
    expect(open.body.post.files[0].url).not.toContain("?");

    expect((await api(`/posts/${code}`, { method: "PATCH", key: owner.apiKey, body: { privacy: "private" } })).status).toBe(200);
    expect((await api(`/posts/${code}`, { key: reader.apiKey })).status).toBe(404);
    await api(`/posts/${code}`, { key: owner.apiKey });
    const signed = await api(`/posts/${code}`, { key: owner.apiKey });
    expect(signed.status).toBe(200);
    // A signed link carries an expiry from the clock: such a reply is never kept as text.
    expect(signed.body.post.files[0].url).toContain("?");
  });
});
