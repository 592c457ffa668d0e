/** GET /gifs: who is listed, in what order, search semantics, `liked`, and the write side. */
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { suspendUser, unsuspendUser } from "@/lib/users/accounts";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestPost, createTestTeam, createTestUser, type TestUser } from "../support/fixtures";
import { api, relay } from "../support/http";
import { codesOf, createGifPost } from "./helpers";

useTestDatabase();
useCounterStore({ perTest: true });

let author: TestUser;
let other: TestUser;
let spammer: TestUser;
const codes: Record<string, string> = {};
const base = Date.UTC(2026, 5, 1);
let clock = 0;
/** Each post one second newer than the one before. */
const at = () => new Date(base + ++clock * 1000);

beforeAll(async () => {
  author = await createTestUser();
  other = await createTestUser();
  spammer = await createTestUser();
  const team = await createTestTeam(author.id);
  const gif = async (name: string, userId: string, options: Parameters<typeof createGifPost>[1]) => {
    codes[name] = (await createGifPost(userId, { createdAt: at(), ...options })).code;
  };
  // Every title has "party", so a search shows the same exclusions as the plain list.
  await gif("dancing", author.id, { title: "Dancing Cat party" });
  await gif("unlisted", author.id, { privacy: "unlisted", title: "party unlisted" });
  await gif("private", author.id, { privacy: "private", title: "party private" });
  await gif("draft", author.id, { draft: true, title: "party draft" });
  await gif("moderated", author.id, { moderated: true, title: "party moderated" });
  await gif("restricted", author.id, { restricted: true, title: "party restricted" });
  await gif("team", author.id, { teamId: team.id, title: "party team" });
  await gif("png", author.id, { mimeType: "image/png", title: "party png" });
  await gif("video", author.id, { mimeType: "video/mp4", title: "party video" });
  await gif("spam", spammer.id, { title: "party spam" });
  await gif("cafe", other.id, { title: "Grumpy Café party", description: "crème brûlée reaction" });
  await gif("album", other.id, { files: 3, title: "party album" });
  await gif("untitled", other.id, {});
  await gif("sixwords", other.id, { title: "one two three four five six" });
});

const gifs = (query = "", options: Parameters<typeof api>[1] = {}) => api(`/gifs${query}`, options);
const search = async (words: string) => codesOf(await gifs(`?search=${encodeURIComponent(words)}`));

describe("GET /gifs listing", () => {
  it("needs no key and lists public GIF-first posts newest first, nothing else", async () => {
    const reply = await gifs();
    expect(reply.status).toBe(200);
    expect(codesOf(reply)).toEqual(["sixwords", "untitled", "album", "cafe", "spam", "dancing"].map((n) => codes[n]));
    expect(reply.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(reply.headers.get("x-ratelimit-limit")).toBe("60");
  });

  it("excludes unlisted, private, draft, moderated, restricted and team posts, and non-GIF first files", async () => {
    const listed = await search("party");
    expect(listed).toEqual(["album", "cafe", "spam", "dancing"].map((n) => codes[n]));
    for (const name of ["unlisted", "private", "draft", "moderated", "restricted", "team", "png", "video"]) {
      expect(listed, name).not.toContain(codes[name]);
    }
  });

  it("returns full post objects with liked false for anonymous callers", async () => {
    const reply = await gifs("?search=grumpy");
    expect(reply.body.posts).toHaveLength(1);
    const post = reply.body.posts[0];
    expect(post).toMatchObject({
      code: codes.cafe,
      privacy: "public",
      liked: false,
      file_count: 1,
      team_id: null,
      title: "Grumpy Café party",
    });
    expect(post.files[0].mime_type).toBe("image/gif");
    expect(post.author.id).toBe(other.id);
    expect(post).not.toHaveProperty("moderated");
  });

  it("shows liked true to a keyed caller who liked the post (API and Relay), false otherwise", async () => {
    const post = await db().post.findUniqueOrThrow({ where: { code: codes.dancing } });
    await db().like.create({ data: { postId: post.id, userId: other.id } });
    for (const reply of [await gifs("?search=party", { key: other.apiKey }), await relay("/gifs?search=party", { key: other.relayKey })]) {
      expect(reply.status).toBe(200);
      const liked = Object.fromEntries((reply.body.posts as { code: string; liked: boolean }[]).map((p) => [p.code, p.liked]));
      expect(liked).toEqual({ [codes.album]: false, [codes.cafe]: false, [codes.spam]: false, [codes.dancing]: true });
    }
    const anonymous = await gifs("?search=dancing");
    expect(anonymous.body.posts[0].liked).toBe(false);
  });

  it("checks a key that is sent", async () => {
    const reply = await gifs("", { key: "not-a-key" });
    expect(reply.status).toBe(401);
    expect(reply.body.error.type).toBe("unauthorized");
  });

  it("drops a suspended author's posts at once, and shows them again when lifted", async () => {
    expect(await search("spam")).toEqual([codes.spam]);
    await suspendUser(spammer.id);
    expect(await search("spam")).toEqual([]);
    expect(codesOf(await gifs())).not.toContain(codes.spam);
    await unsuspendUser(spammer.id);
    expect(await search("spam")).toEqual([codes.spam]);
  });
});

describe("GET /gifs search", () => {
  it("matches the start of words, never the inside", async () => {
    expect(await search("danc")).toEqual([codes.dancing]);
    expect(await search("d")).toEqual([codes.dancing]);
    expect(await search("ancing")).toEqual([]);
    expect(await search("at")).toEqual([]);
    expect(await search("dancingg")).toEqual([]);
  });

  it("ignores case and accents, in the title and the description", async () => {
    expect(await search("CAT")).toEqual([codes.dancing]);
    expect(await search("cafe")).toEqual([codes.cafe]);
    expect(await search("CAFÉ")).toEqual([codes.cafe]);
    expect(await search("creme brulee")).toEqual([codes.cafe]);
    expect(await search("Reac")).toEqual([codes.cafe]);
  });

  it("needs every word, in any order", async () => {
    expect(await search("cat dancing")).toEqual([codes.dancing]);
    expect(await search("dancing cat")).toEqual([codes.dancing]);
    expect(await search("party cat")).toEqual([codes.dancing]);
    expect(await search("cat grumpy")).toEqual([]);
  });

  it("uses at most six words: a seventh is ignored", async () => {
    expect(await search("one two three four five six")).toEqual([codes.sixwords]);
    expect(await search("six five four three two one nothing")).toEqual([codes.sixwords]);
    expect(await search("one two three four five nothing six")).toEqual([]);
  });

  it("cuts a long search instead of refusing it (only limit and cursor can be invalid)", async () => {
    const reply = await gifs(`?search=${encodeURIComponent(`one two three four five six ${"x".repeat(400)}`)}`);
    expect(reply.status, reply.text).toBe(200);
    expect(codesOf(reply)).toEqual([codes.sixwords]);
  });

  it("finds every word of a full-length description, the last one included", async () => {
    // 66 distinct two-letter words fill the 200 characters a description may have.
    const words = Array.from({ length: 66 }, (_, i) => String.fromCharCode(97 + Math.floor(i / 26), 97 + (i % 26)));
    const description = words.join(" ");
    expect(description.length).toBeLessThanOrEqual(200);
    const { code } = await createGifPost(other.id, { createdAt: at(), title: "wordy", description });
    expect(await search(`wordy ${words[words.length - 1]}`)).toEqual([code]);
  });

  it("treats a search with no words as no search", async () => {
    expect(await search("  ?! ")).toEqual(codesOf(await gifs()));
  });
});

describe("the write side keeps the search index in step", () => {
  it("follows title and privacy edits (PATCH /posts/{code})", async () => {
    const { code } = await createGifPost(author.id, { createdAt: at() });
    expect(await search("zebra")).toEqual([]);
    const patch = (body: object) => api(`/posts/${code}`, { method: "PATCH", key: author.apiKey, body });
    expect((await patch({ title: "Zebra stripes" })).status).toBe(200);
    expect(await search("zebra")).toEqual([code]);
    expect((await patch({ privacy: "private" })).status).toBe(200);
    expect(await search("zebra")).toEqual([]);
    expect(codesOf(await gifs())).not.toContain(code);
    expect((await patch({ privacy: "public" })).status).toBe(200);
    expect(await search("stripes zeb")).toEqual([code]);
    expect((await patch({ title: "Horse" })).status).toBe(200);
    expect(await search("zebra")).toEqual([]);
    expect(await search("horse")).toEqual([code]);
  });

  it("follows the first file: deleting a PNG in front of a GIF lists the post", async () => {
    const post = await createTestPost(author.id, { privacy: "public", mimeType: "image/png", files: 2, createdAt: at() });
    await db().file.updateMany({ where: { postId: post.id, index: 1 }, data: { mimeType: "image/gif" } });
    expect((await api(`/posts/${post.code}`, { method: "PATCH", key: author.apiKey, body: { title: "Mixed bag" } })).status).toBe(200);
    expect(await search("mixed")).toEqual([]);
    expect((await api(`/posts/${post.code}/files/${post.names[0]}`, { method: "DELETE", key: author.apiKey })).status).toBe(200);
    expect(await search("mixed")).toEqual([post.code]);
    expect(codesOf(await gifs())[0]).toBe(post.code);
  });
});
