/** GET /posts (gallery, filters, paging) and GET /users/{id}/posts (public posts). */
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestPost, createTestTeam, createTestUser, type TestUser } from "../support/fixtures";
import { api, relay } from "../support/http";

useTestDatabase();
useCounterStore({ perTest: true });

let owner: TestUser;
let other: TestUser;
const codes: Record<string, string> = {};
const base = Date.UTC(2026, 5, 1);

beforeAll(async () => {
  owner = await createTestUser();
  other = await createTestUser();
  const make = async (name: string, i: number, options: Parameters<typeof createTestPost>[1]) => {
    codes[name] = (await createTestPost(owner.id, { ...options, createdAt: new Date(base + i * 1000) })).code;
  };
  await make("pubCat", 1, { privacy: "public", title: "Grumpy Cat", description: "a café photo" });
  await make("unlisted", 2, { privacy: "unlisted", title: "Dog" });
  await make("private", 3, { privacy: "private", title: "catalog" });
  await make("album", 4, { privacy: "public", files: 3, title: "Holiday" });
  await make("gif", 5, { privacy: "public", mimeType: "image/gif", title: "dancing cat" });
  await make("video", 6, { privacy: "public", mimeType: "video/mp4" });
  await make("moderated", 7, { privacy: "public", moderated: true });
  const team = await createTestTeam(owner.id);
  await createTestPost(owner.id, { teamId: team.id, createdAt: new Date(base + 8000) });
});

const list = async (query: string, key = owner.apiKey) => api(`/posts${query}`, { key });
const codesOf = (body: { posts: { code: string }[] }) => body.posts.map((p) => p.code);

describe("GET /posts", () => {
  it("lists the caller's own posts newest first, without team posts", async () => {
    const reply = await list("");
    expect(reply.status).toBe(200);
    expect(codesOf(reply.body)).toEqual(["moderated", "video", "gif", "album", "private", "unlisted", "pubCat"].map((n) => codes[n]));
    expect(reply.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(reply.body.posts[0].moderated).toBe(true);
  });

  it("pages with limit and an opaque cursor until has_more is false", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const reply = await list(`?limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      expect(reply.status).toBe(200);
      expect(reply.body.posts.length).toBeLessThanOrEqual(3);
      seen.push(...codesOf(reply.body));
      cursor = reply.body.next_cursor;
      expect(cursor === null).toBe(!reply.body.has_more);
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(codesOf((await list("")).body));
  });

  it("filters by privacy, tab and search (word prefixes, case- and accent-insensitive)", async () => {
    expect(codesOf((await list("?privacy=unlisted")).body)).toEqual([codes.unlisted]);
    expect(codesOf((await list("?tab=albums")).body)).toEqual([codes.album]);
    expect(codesOf((await list("?tab=gifs")).body)).toEqual([codes.gif]);
    expect(codesOf((await list("?tab=videos")).body)).toEqual([codes.video]);
    expect(codesOf((await list("?search=CAT")).body)).toEqual([codes.gif, codes.private, codes.pubCat]);
    expect(codesOf((await list("?search=cat%20grum")).body)).toEqual([codes.pubCat]);
    expect(codesOf((await list("?search=cafe")).body)).toEqual([codes.pubCat]);
    expect(codesOf((await list("?search=at")).body)).toEqual([]);
  });

  it("400 for a bad limit, a malformed cursor, a cursor of other filters, or a bad filter", async () => {
    for (const q of ["?limit=0", "?limit=101", "?limit=x", "?cursor=garbage", "?privacy=secret", "?tab=nope"]) {
      const reply = await list(q);
      expect(reply.status, q).toBe(400);
      expect(reply.body.error.type).toBe("invalid_request");
    }
    const first = await list("?limit=2&privacy=public");
    expect((await list(`?limit=2&cursor=${first.body.next_cursor}`)).status).toBe(400);
    const elsewhere = await api(`/users/${owner.id}/posts?cursor=${first.body.next_cursor}`, { key: owner.apiKey });
    expect(elsewhere.status).toBe(400);
  });

  it("needs gallery access", async () => {
    const reply = await list("", owner.uploadOnlyKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.type).toBe("forbidden");
  });

  it("shows `liked` for the caller", async () => {
    const post = await db().post.findUniqueOrThrow({ where: { code: codes.pubCat } });
    await db().like.create({ data: { postId: post.id, userId: owner.id } });
    const reply = await list("?search=grumpy");
    expect(reply.body.posts[0].liked).toBe(true);
  });
});

describe("GET /users/{id}/posts", () => {
  it("lists only public, unmoderated, non-team posts, newest first", async () => {
    const reply = await api(`/users/${owner.id}/posts`, { key: other.apiKey });
    expect(reply.status).toBe(200);
    expect(codesOf(reply.body)).toEqual(["video", "gif", "album", "pubCat"].map((n) => codes[n]));
    expect(reply.body.posts[0]).not.toHaveProperty("moderated");
    const viaRelay = await relay(`/users/${owner.id}/posts?limit=1`, { key: other.relayKey });
    expect(viaRelay.body.has_more).toBe(true);
    expect(viaRelay.body.posts).toHaveLength(1);
  });

  it("404 for an unknown user, 403 suspended for a suspended one", async () => {
    expect((await api("/users/nobody123/posts", { key: other.apiKey })).status).toBe(404);
    const gone = await createTestUser({ suspended: true });
    const reply = await api(`/users/${gone.id}/posts`, { key: other.apiKey });
    expect(reply.status).toBe(403);
    expect(reply.body.error.type).toBe("suspended");
    // interface.md, context fields: the suspended user's `username` is only on GET /users/{id}.
    expect(reply.body.error).not.toHaveProperty("username");
    expect((await api(`/users/${gone.id}`, { key: other.apiKey })).body.error).toMatchObject({
      type: "suspended",
      username: gone.username,
    });
  });
});
