/**
 * Tags and favourites (docs/tags.md): the tag endpoints, PATCH /posts/{code} and the batch
 * actions, GET /posts?tag=&favorite= with stable cursors on the API and Relay, and the rule
 * that tags and the favourite mark never reach anyone but the owner.
 */
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { loadSharePost } from "@/lib/web/share";
import { useCounterStore } from "../support/counters";
import { useTestDatabase } from "../support/db";
import { createTestPost, createTestTeam, createTestUser } from "../support/fixtures";
import { api, relay } from "../support/http";

useTestDatabase();
useCounterStore({ perTest: true });

const newTag = (key: string, body: unknown) => api("/tags", { method: "POST", key, body });
const batch = (key: string, body: unknown) => api("/posts/batch", { method: "POST", key, body });
const patch = (key: string, code: string, body: unknown) => api(`/posts/${code}`, { method: "PATCH", key, body });
const codesOf = (reply: { body: { posts: { code: string }[] } }) => reply.body.posts.map((p) => p.code);

describe("tag endpoints", () => {
  it("creates, lists by name, renames, recolours and deletes a tag; names are unique in any case", async () => {
    const user = await createTestUser();
    const made = await newTag(user.apiKey, { name: "  Holiday ", color: "#FF8800" });
    expect(made.status, made.text).toBe(200);
    expect(made.body.tag).toMatchObject({ name: "Holiday", color: "#ff8800", post_count: 0 });
    const plain = await newTag(user.apiKey, { name: "art" });
    expect(plain.body.tag.color).toBe("#64748b");
    expect((await newTag(user.apiKey, { name: "HOLIDAY" })).status).toBe(400);
    const list = await api("/tags", { key: user.apiKey });
    expect(list.body.tags.map((t: { name: string }) => t.name)).toEqual(["art", "Holiday"]);

    const id = made.body.tag.id;
    const changed = await api(`/tags/${id}`, { method: "PATCH", key: user.apiKey, body: { name: "Trips", color: "#00aa00" } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.tag).toMatchObject({ id, name: "Trips", color: "#00aa00" });
    expect((await api(`/tags/${id}`, { method: "PATCH", key: user.apiKey, body: { name: "Art" } })).status).toBe(400);
    expect((await api(`/tags/${id}`, { method: "PATCH", key: user.apiKey, body: {} })).status).toBe(400);
    expect((await api(`/tags/${id}`, { method: "DELETE", key: user.apiKey })).body).toEqual({ id, deleted: true });
    expect((await api(`/tags/${id}`, { method: "DELETE", key: user.apiKey })).status).toBe(404);
  });

  it("refuses bad names and colours with 400 invalid_request", async () => {
    const user = await createTestUser();
    for (const body of [
      {},
      { name: "" },
      { name: "  " },
      { name: "a".repeat(33) },
      { name: "two\nlines" },
      { name: 5 },
      { name: "x", color: "red" },
      { name: "x", color: "#abc" },
      { name: "x", color: "#12345g" },
      { name: "x", color: 1 },
    ]) {
      const reply = await newTag(user.apiKey, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.error.type).toBe("invalid_request");
    }
    expect((await newTag(user.apiKey, { name: "a".repeat(32) })).status).toBe(200);
  });

  it("someone else's tag is not found; app keys need gallery access; team keys get 401; Relay works alike", async () => {
    const user = await createTestUser();
    const other = await createTestUser();
    const { tag } = (await newTag(user.apiKey, { name: "Mine" })).body;
    expect((await api(`/tags/${tag.id}`, { method: "PATCH", key: other.apiKey, body: { name: "x" } })).status).toBe(404);
    expect((await api(`/tags/${tag.id}`, { method: "DELETE", key: other.apiKey })).status).toBe(404);
    expect((await api("/tags", { key: other.apiKey })).body.tags).toEqual([]);
    expect((await api("/tags", { key: user.uploadOnlyKey })).status).toBe(403);
    expect((await newTag(user.uploadOnlyKey, { name: "x" })).status).toBe(403);
    expect((await relay("/tags", { key: user.relayKey })).body.tags).toHaveLength(1);
    const team = await createTestTeam(user.id);
    expect((await api("/tags", { key: team.key })).status).toBe(401);
  });
});

describe("tags and favourites on posts", () => {
  it("PATCH sets a post's tags (replacing them) and its favourite mark; the owner sees them, by name", async () => {
    const user = await createTestUser();
    const post = await createTestPost(user.id, { privacy: "public" });
    const b = (await newTag(user.apiKey, { name: "b-tag", color: "#111111" })).body.tag;
    const a = (await newTag(user.apiKey, { name: "a-tag", color: "#222222" })).body.tag;

    const before = await api(`/posts/${post.code}`, { key: user.apiKey });
    expect(before.body.post).toMatchObject({ favorite: false, tags: [] });

    const set = await patch(user.apiKey, post.code, { tags: [b.id, a.id, b.id], favorite: true });
    expect(set.status, set.text).toBe(200);
    expect(set.body.post.favorite).toBe(true);
    expect(set.body.post.tags).toEqual([
      { id: a.id, name: "a-tag", color: "#222222" },
      { id: b.id, name: "b-tag", color: "#111111" },
    ]);
    const read = await api(`/posts/${post.code}`, { key: user.apiKey });
    expect(read.body.post.tags.map((t: { id: string }) => t.id)).toEqual([a.id, b.id]);
    expect((await api("/tags", { key: user.apiKey })).body.tags.map((t: { post_count: number }) => t.post_count)).toEqual([1, 1]);

    // Replacing: only b left; the title edit alone keeps the tags.
    expect((await patch(user.apiKey, post.code, { tags: [b.id] })).body.post.tags.map((t: { id: string }) => t.id)).toEqual([b.id]);
    expect((await patch(user.apiKey, post.code, { title: "x" })).body.post).toMatchObject({ favorite: true, tags: [{ id: b.id }] });

    // A renamed tag shows its new name on the post; a deleted one comes off it.
    await api(`/tags/${b.id}`, { method: "PATCH", key: user.apiKey, body: { name: "renamed" } });
    expect((await api(`/posts/${post.code}`, { key: user.apiKey })).body.post.tags[0].name).toBe("renamed");
    await api(`/tags/${b.id}`, { method: "DELETE", key: user.apiKey });
    expect((await api(`/posts/${post.code}`, { key: user.apiKey })).body.post.tags).toEqual([]);
    expect(await db().post.count({ where: { code: post.code } })).toBe(1);
  });

  it("PATCH refuses another user's tag, an unknown id, too many tags and a team post", async () => {
    const user = await createTestUser();
    const other = await createTestUser();
    const post = await createTestPost(user.id);
    const theirs = (await newTag(other.apiKey, { name: "theirs" })).body.tag;
    const bad = await patch(user.apiKey, post.code, { tags: [theirs.id] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: "invalid_request", message: expect.stringContaining(theirs.id) });
    expect((await patch(user.apiKey, post.code, { tags: ["nope"] })).status).toBe(400);
    expect((await patch(user.apiKey, post.code, { tags: "x" })).status).toBe(400);
    expect((await patch(user.apiKey, post.code, { favorite: "yes" })).status).toBe(400);
    expect((await patch(user.apiKey, post.code, { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) })).status).toBe(400);

    const team = await createTestTeam(user.id);
    const teamPost = await createTestPost(user.id, { teamId: team.id });
    const refused = await api(`/posts/${teamPost.code}`, { method: "PATCH", key: team.key, body: { favorite: true } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.type).toBe("forbidden");
    // The team's own edits are unchanged.
    expect((await api(`/posts/${teamPost.code}`, { method: "PATCH", key: team.key, body: { title: "ok" } })).status).toBe(200);
    expect((await patch(user.apiKey, teamPost.code, { favorite: true })).status).toBe(403);
  });

  it("tags and the favourite mark never reach anyone but the owner", async () => {
    const owner = await createTestUser();
    const reader = await createTestUser();
    const post = await createTestPost(owner.id, { privacy: "public" });
    const tag = (await newTag(owner.apiKey, { name: "secret-label" })).body.tag;
    await patch(owner.apiKey, post.code, { tags: [tag.id], favorite: true });

    for (const reply of [
      await api(`/posts/${post.code}`, { key: reader.apiKey }),
      await relay(`/posts/${post.code}`, { key: reader.relayKey }),
      await api(`/users/${owner.id}/posts`, { key: reader.apiKey }),
      await api("/gifs"),
    ]) {
      expect(reply.status, reply.text).toBe(200);
      expect(reply.text).not.toContain("secret-label");
      expect(reply.text).not.toContain('"favorite"');
      expect(reply.text).not.toContain('"tags"');
    }
    // Another reader cannot list or filter by the owner's tag.
    expect((await api(`/posts?tag=${tag.id}`, { key: reader.apiKey })).body.posts).toEqual([]);
    // The share page's data for a reader.
    for (const viewer of [reader.id, null]) {
      const shared = await loadSharePost(post.code, viewer, null);
      expect(shared.kind).toBe("post");
      if (shared.kind !== "post") continue;
      expect(JSON.stringify(shared.post)).not.toContain("secret-label");
      expect(shared.post).not.toHaveProperty("favorite");
      expect(shared.post).not.toHaveProperty("tags");
    }
  });
});

describe("bulk tag and favourite actions", () => {
  it("tag_add, tag_remove and favorite go through POST /posts/batch, each post alone", async () => {
    const user = await createTestUser();
    const other = await createTestUser();
    const mine = await Promise.all([1, 2, 3].map(() => createTestPost(user.id)));
    const theirs = await createTestPost(other.id, { privacy: "public" });
    const tag = (await newTag(user.apiKey, { name: "bulk" })).body.tag;
    const codes = [...mine.map((p) => p.code), theirs.code, "bad code!"];

    const added = await batch(user.apiKey, { action: "tag_add", tag: tag.id, codes });
    expect(added.status, added.text).toBe(200);
    expect(added.body.succeeded.map((s: { index: number }) => s.index)).toEqual([0, 1, 2]);
    expect(added.body.failed.map((f: { index: number; error: { type: string } }) => [f.index, f.error.type])).toEqual([
      [3, "forbidden"],
      [4, "invalid_request"],
    ]);
    expect(await db().postTag.count({ where: { tagId: tag.id } })).toBe(3);
    // Adding again changes nothing and fails nothing.
    expect((await batch(user.apiKey, { action: "tag_add", tag: tag.id, codes: [mine[0].code] })).body.failed).toEqual([]);

    const removedOk = await batch(user.apiKey, { action: "tag_remove", tag: tag.id, codes: [mine[0].code] });
    expect(removedOk.body.succeeded).toEqual([{ index: 0, code: mine[0].code }]);
    const again = await batch(user.apiKey, { action: "tag_remove", tag: tag.id, codes: [mine[0].code] });
    expect(again.body.failed[0].error.type).toBe("not_found");

    const fav = await batch(user.apiKey, { action: "favorite", favorite: true, codes: mine.map((p) => p.code) });
    expect(fav.body.succeeded).toHaveLength(3);
    expect(await db().post.count({ where: { userId: user.id, favorite: true } })).toBe(3);
    await batch(user.apiKey, { action: "favorite", favorite: false, codes: [mine[1].code] });
    expect(await db().post.count({ where: { userId: user.id, favorite: true } })).toBe(2);
  });

  it("refuses someone else's tag for the whole request (404), a missing tag or favorite (400), and team keys' tags", async () => {
    const user = await createTestUser();
    const other = await createTestUser();
    const post = await createTestPost(user.id);
    const theirs = (await newTag(other.apiKey, { name: "theirs" })).body.tag;
    expect((await batch(user.apiKey, { action: "tag_add", tag: theirs.id, codes: [post.code] })).status).toBe(404);
    expect((await batch(user.apiKey, { action: "tag_add", codes: [post.code] })).status).toBe(400);
    expect((await batch(user.apiKey, { action: "favorite", codes: [post.code] })).status).toBe(400);
    expect((await batch(user.apiKey, { action: "favorite", favorite: "yes", codes: [post.code] })).status).toBe(400);
    const team = await createTestTeam(user.id);
    const mineTag = (await newTag(user.apiKey, { name: "mine" })).body.tag;
    expect((await batch(team.key, { action: "tag_add", tag: mineTag.id, codes: [post.code] })).status).toBe(404);
  });
});

describe("GET /posts?tag=&favorite=", () => {
  it("filters by tag and by favourite, combined with sort and paging; cursors are bound to the filter", async () => {
    const user = await createTestUser();
    const posts = [];
    for (let i = 0; i < 7; i++) posts.push(await createTestPost(user.id, { createdAt: new Date(Date.UTC(2026, 0, 1 + i)) }));
    const tag = (await newTag(user.apiKey, { name: "five" })).body.tag;
    const tagged = posts.slice(0, 5);
    await batch(user.apiKey, { action: "tag_add", tag: tag.id, codes: tagged.map((p) => p.code) });
    await batch(user.apiKey, { action: "favorite", favorite: true, codes: [posts[1].code, posts[3].code, posts[6].code] });
    const newestFirst = (list: { code: string }[]) => [...list].reverse().map((p) => p.code);

    for (const call of [api, relay]) {
      const key = call === api ? user.apiKey : user.relayKey;
      // Pages of 2 through the tagged posts: every one once, newest first.
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof api>> = await call(`/posts?tag=${tag.id}&limit=2${cursor ? `&cursor=${cursor}` : ""}`, {
          key,
        });
        expect(page.status, page.text).toBe(200);
        seen.push(...codesOf(page));
        cursor = page.body.next_cursor;
      } while (cursor);
      expect(seen).toEqual(newestFirst(tagged));

      expect(codesOf(await call("/posts?favorite=true", { key }))).toEqual([posts[6].code, posts[3].code, posts[1].code]);
      expect(codesOf(await call("/posts?favorite=false", { key }))).toHaveLength(4);
      expect(codesOf(await call(`/posts?favorite=true&tag=${tag.id}`, { key }))).toEqual([posts[3].code, posts[1].code]);
      expect(codesOf(await call(`/posts?favorite=true&sort=-date`, { key }))).toEqual([posts[1].code, posts[3].code, posts[6].code]);
    }

    // A cursor of the tag filter is refused without it, and a plain cursor with it.
    const first = await api(`/posts?tag=${tag.id}&limit=2`, { key: user.apiKey });
    const wrong = await api(`/posts?limit=2&cursor=${first.body.next_cursor}`, { key: user.apiKey });
    expect(wrong.status).toBe(400);
    const plain = await api("/posts?limit=2", { key: user.apiKey });
    expect((await api(`/posts?favorite=true&limit=2&cursor=${plain.body.next_cursor}`, { key: user.apiKey })).status).toBe(400);
    // Without the new filters the listing is as before, its cursor included.
    const plainNext = await api(`/posts?limit=2&cursor=${plain.body.next_cursor}`, { key: user.apiKey });
    expect(codesOf(plainNext)).toEqual(newestFirst(posts).slice(2, 4));
  });

  it("a bad favorite is 400 invalid_request; an unknown tag lists nothing", async () => {
    const user = await createTestUser();
    await createTestPost(user.id);
    const bad = await api("/posts?favorite=yes", { key: user.apiKey });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: "invalid_request", message: expect.stringContaining("favorite") });
    expect((await api("/posts?tag=unknown", { key: user.apiKey })).body.posts).toEqual([]);
  });
});
