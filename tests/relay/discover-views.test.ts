/** Relay GET /discover (selection, ranking, storage check) and counted views. */
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { discoverScore } from "@/lib/social/score";
import { storage } from "@/lib/storage";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestPost, createTestTeam, createTestUser, type TestUser } from "../support/fixtures";
import { api } from "../support/http";
import { createUsers, expectOk, get, post, postCounts } from "./helpers";

useTestDatabase();
useCounterStore({ perTest: true });

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const now = Date.now();

let viewer: TestUser;
let author: TestUser;
const code: Record<string, string> = {};
const fresh: string[] = [];

beforeAll(async () => {
  [viewer, author] = await createUsers(2);
  const at = (ms: number) => new Date(now - ms);

  // 55 fresh posts, one a second: more than discover returns.
  for (let i = 1; i <= 55; i++) fresh.push((await createTestPost(author.id, { createdAt: at(i * 1000) })).code);
  code.album = (await createTestPost(author.id, { files: 3, createdAt: at(500) })).code;

  // Newest of all, but never listed.
  const newest = at(200);
  code.unlisted = (await createTestPost(author.id, { privacy: "unlisted", createdAt: newest })).code;
  code.private = (await createTestPost(author.id, { privacy: "private", createdAt: newest })).code;
  code.moderated = (await createTestPost(author.id, { moderated: true, createdAt: newest })).code;
  code.draft = (await createTestPost(author.id, { draft: true, createdAt: newest })).code;
  const teamOwner = await createTestUser({ plan: "ultra" });
  code.team = (await createTestPost(teamOwner.id, { teamId: (await createTestTeam(teamOwner.id)).id, createdAt: newest })).code;
  const suspended = await createTestUser();
  code.suspended = (await createTestPost(suspended.id, { createdAt: newest })).code;
  await db().user.update({ where: { id: suspended.id }, data: { suspended: true } });
  const missing = await createTestPost(author.id, { createdAt: newest });
  code.missing = missing.code;
  await storage().delete(missing.keys[0]);

  // 210 posts a day old without files (skipped by the storage check): they fill the
  // "newest 200" candidate source, so older posts can only come from the "hot" one.
  await db().post.createMany({
    data: Array.from({ length: 210 }, (_, i) => ({
      code: `filler${i}`,
      userId: author.id,
      privacy: "public",
      createdAt: at(DAY + i * 1000),
    })),
  });

  // 12 hours old with three likes: log10(4) ≈ 0.6 day of score, more than its age.
  code.warm = (await createTestPost(author.id, { createdAt: at(12 * HOUR) })).code;
  for (const fan of await createUsers(3)) expectOk(await post(`/posts/${code.warm}/like`, fan));

  // Three days old and viral: its stored score is what 100 000 likes would have written.
  const viral = await createTestPost(author.id, { createdAt: at(3 * DAY) });
  code.viral = viral.code;
  const createdAt = at(3 * DAY);
  await db().post.update({
    where: { id: viral.id },
    data: { likeCount: 100_000, discoverScore: discoverScore({ likeCount: 100_000, commentCount: 0, createdAt }) },
  });
});

const discover = (ip = "198.51.100.20") => get("/discover", viewer, ip);
const codesOf = (body: { posts: { code: string }[] }) => body.posts.map((p) => p.code);

describe("GET /discover", () => {
  it("answers {posts} only: at most 50 public posts, each with its primary file", async () => {
    const reply = await discover();
    expectOk(reply);
    expect(Object.keys(reply.body)).toEqual(["posts"]);
    expect(reply.body.posts).toHaveLength(50);
    for (const p of reply.body.posts) {
      expect(p.privacy).toBe("public");
      expect(p.files).toHaveLength(1);
    }
    const album = reply.body.posts.find((p: { code: string }) => p.code === code.album);
    expect(album).toMatchObject({ file_count: 3, author: { id: author.id }, liked: false });
    expect(album.files[0].name).toBe("file0.png");
    expect(album).not.toHaveProperty("moderated");
  });

  it("leaves out unlisted, private, moderated, draft, team and suspended users' posts, and missing files", async () => {
    const codes = codesOf((await discover()).body);
    for (const name of ["unlisted", "private", "moderated", "draft", "team", "suspended", "missing"]) {
      expect(codes, name).not.toContain(code[name]);
    }
    expect(codes.some((c) => c.startsWith("filler"))).toBe(false);
  });

  it("ranks recent and popular together: viral first, then the liked post of 12 hours ago, then by age", async () => {
    const codes = codesOf((await discover()).body);
    expect(codes.slice(0, 3)).toEqual([code.viral, code.warm, code.album]);
    expect(codes.slice(3)).toEqual(fresh.slice(0, 47));
  });

  it("shows the caller's likes; the caller's own posts carry the owner fields", async () => {
    expectOk(await post(`/posts/${fresh[0]}/like`, viewer));
    const mine = (await discover()).body.posts.find((p: { code: string }) => p.code === fresh[0]);
    expect(mine).toMatchObject({ liked: true, like_count: 1 });
    const asAuthor = (await get("/discover", author)).body.posts.find((p: { code: string }) => p.code === fresh[0]);
    expect(asAuthor).toMatchObject({ moderated: false, restricted: false, access: [] });
  });

  it("counts a view for each returned post, at most 3 per IP per post per hour", async () => {
    const before = (await postCounts(code.album)).viewCount;
    const ip = "203.0.113.77";
    const shown: number[] = [];
    for (let i = 0; i < 4; i++) {
      const album = (await discover(ip)).body.posts.find((p: { code: string }) => p.code === code.album);
      shown.push(album.view_count);
    }
    expect(shown).toEqual([before + 1, before + 2, before + 3, before + 3]);
    expect((await postCounts(code.album)).viewCount).toBe(before + 3);
    await discover("203.0.113.78");
    expect((await postCounts(code.album)).viewCount).toBe(before + 4);
  });
});

describe("views on GET /posts/{code}", () => {
  it("Relay counts 3 views per IP per post per hour; a 4th is not counted; another IP is", async () => {
    const { id, code: c } = await createTestPost(author.id);
    const seen: number[] = [];
    for (let i = 0; i < 4; i++) seen.push((await get(`/posts/${c}`, viewer, "192.0.2.10")).body.post.view_count);
    expect(seen).toEqual([1, 2, 3, 3]);
    expect((await get(`/posts/${c}`, viewer, "192.0.2.11")).body.post.view_count).toBe(4);
    expect((await postCounts(c)).viewCount).toBe(4);
    const day = new Date().toISOString().slice(0, 10);
    expect(await db().postViewDay.findUnique({ where: { postId_day: { postId: id, day } } })).toMatchObject({ views: 4 });
  });

  it("parallel reads from one IP count exactly 3", async () => {
    const { code: c } = await createTestPost(author.id);
    const readers = await createUsers(3);
    await Promise.all(readers.flatMap((r) => [0, 1, 2].map(() => get(`/posts/${c}`, r, "192.0.2.30"))));
    expect((await postCounts(c)).viewCount).toBe(3);
  });

  it("unlisted, private and moderated posts count no views; neither does the API", async () => {
    const unlisted = await createTestPost(author.id, { privacy: "unlisted" });
    const priv = await createTestPost(author.id, { privacy: "private" });
    const moderated = await createTestPost(author.id, { moderated: true });
    const pub = await createTestPost(author.id);
    await get(`/posts/${unlisted.code}`, viewer, "192.0.2.20");
    await get(`/posts/${priv.code}`, author, "192.0.2.20");
    await get(`/posts/${moderated.code}`, author, "192.0.2.20");
    await api(`/posts/${pub.code}`, { key: viewer.apiKey, ip: "192.0.2.20" });
    for (const p of [unlisted, priv, moderated, pub]) expect((await postCounts(p.code)).viewCount).toBe(0);
  });
});
