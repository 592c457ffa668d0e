/** GET /posts/{code}: visibility, ownership, moderation, team rules, signed file URLs. */
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestPost, createTestTeam, createTestUser, type TestUser } from "../support/fixtures";
import { api, relay } from "../support/http";
import { serveCdn } from "@/lib/routes/cdn";

useTestDatabase();
useCounterStore();

let owner: TestUser;
let other: TestUser;
beforeAll(async () => {
  owner = await createTestUser({ plan: "ultra" });
  other = await createTestUser();
});

const cdn = (url: string, init?: RequestInit) => serveCdn(new Request(url, init));

describe("GET /posts/{code}", () => {
  it("public: anyone sees it; moderated/restricted only for the owner", async () => {
    const post = await createTestPost(owner.id, { privacy: "public", title: "hello" });
    const mine = await api(`/posts/${post.code}`, { key: owner.apiKey });
    expect(mine.status).toBe(200);
    expect(mine.body.post).toMatchObject({
      code: post.code,
      moderated: false,
      restricted: false,
      title: "hello",
      file_count: 1,
      team_id: null,
    });
    expect(mine.body.post.url).toMatch(new RegExp(`/p/${post.code}$`));
    expect(mine.body.post.files[0].url).not.toContain("sig=");
    const theirs = await api(`/posts/${post.code}`, { key: other.apiKey });
    expect(theirs.status).toBe(200);
    expect(theirs.body.post).not.toHaveProperty("moderated");
    expect(theirs.body.post).not.toHaveProperty("restricted");
    expect(theirs.body.post).not.toHaveProperty("access");
    expect(theirs.body.post.author.id).toBe(owner.id);
  });

  it("private: 404 for others, signed file URLs for the owner", async () => {
    const post = await createTestPost(owner.id, { privacy: "private" });
    expect((await api(`/posts/${post.code}`, { key: other.apiKey })).status).toBe(404);
    const mine = await api(`/posts/${post.code}`, { key: owner.apiKey });
    const url: string = mine.body.post.files[0].url;
    expect(url).toMatch(/[?&]sig=/);
    expect(url).toMatch(/[?&]exp=\d+/);
    const exp = Number(new URL(url).searchParams.get("exp"));
    expect(exp - Date.now() / 1000).toBeGreaterThan(86_400 - 60);
    expect(exp - Date.now() / 1000).toBeLessThanOrEqual(86_400);

    const ok = await cdn(url);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("file 0 of");
    const bare = await cdn(url.split("?")[0]);
    expect([403, 404]).toContain(bare.status);
    const tampered = await cdn(url.replace(/sig=[^&]+/, "sig=AAAA"));
    expect([403, 404]).toContain(tampered.status);
    const later = new URL(url);
    later.searchParams.set("exp", String(exp + 1000));
    expect([403, 404]).toContain((await cdn(later.toString())).status);
  });

  it("private with an access list: granted users read it on Relay, without the access field", async () => {
    const post = await createTestPost(owner.id, { privacy: "private" });
    const patched = await relay(`/posts/${post.code}`, { method: "PATCH", key: owner.relayKey, body: { access: [other.username] } });
    expect(patched.status).toBe(200);
    expect(patched.body.post.access.map((u: { id: string }) => u.id)).toEqual([other.id]);
    const granted = await relay(`/posts/${post.code}`, { key: other.relayKey });
    expect(granted.status).toBe(200);
    expect(granted.body.post).not.toHaveProperty("access");
    // The API surface never shows `access`.
    const viaApi = await api(`/posts/${post.code}`, { key: owner.apiKey });
    expect(viaApi.body.post).not.toHaveProperty("access");
    // Nor does the list open the post there: on the API only the owner sees a private post.
    expect((await api(`/posts/${post.code}`, { key: other.apiKey })).status).toBe(404);
    expect((await api(`/posts/${post.code}`, { method: "DELETE", key: other.apiKey })).status).toBe(404);
    expect((await relay(`/posts/${post.code}`, { method: "DELETE", key: other.relayKey })).status).toBe(403);
  });

  it("moderated: the owner gets it with moderated true; others 403 moderated", async () => {
    const post = await createTestPost(owner.id, { privacy: "public", moderated: true });
    const mine = await api(`/posts/${post.code}`, { key: owner.apiKey });
    expect(mine.body.post.moderated).toBe(true);
    const theirs = await api(`/posts/${post.code}`, { key: other.apiKey });
    expect(theirs.status).toBe(403);
    expect(theirs.body.error.type).toBe("moderated");
  });

  it("moderated and private: others still get 404", async () => {
    const post = await createTestPost(owner.id, { privacy: "private", moderated: true });
    expect((await api(`/posts/${post.code}`, { key: other.apiKey })).status).toBe(404);
  });

  it("drafts are invisible to others", async () => {
    const post = await createTestPost(owner.id, { privacy: "public", draft: true });
    expect((await api(`/posts/${post.code}`, { key: other.apiKey })).status).toBe(404);
    expect((await api(`/posts/${post.code}`, { key: owner.apiKey })).status).toBe(200);
  });

  it("team posts: members read them with personal keys; others 404; like fields null", async () => {
    const team = await createTestTeam(owner.id);
    const member = await createTestUser();
    await db().teamMember.create({ data: { teamId: team.id, userId: member.id } });
    const post = await createTestPost(owner.id, { teamId: team.id });
    const asMember = await api(`/posts/${post.code}`, { key: member.apiKey });
    expect(asMember.status).toBe(200);
    expect(asMember.body.post).toMatchObject({ team_id: team.id, privacy: "private", like_count: null, liked: null });
    expect((await api(`/posts/${post.code}`, { key: other.apiKey })).status).toBe(404);
  });

  it("unknown or malformed codes are 404 or 400", async () => {
    expect((await api("/posts/ZZZZZZZZZZ", { key: owner.apiKey })).status).toBe(404);
    expect((await api(`/posts/${encodeURIComponent("bad code!")}`, { key: owner.apiKey })).status).toBe(400);
  });

  it("uses the author's custom link domain for post.url", async () => {
    const user = await createTestUser();
    await db().user.update({ where: { id: user.id }, data: { linkDomain: "i.example.com", linkDomainVerifiedAt: new Date() } });
    const post = await createTestPost(user.id, { privacy: "public" });
    const reply = await api(`/posts/${post.code}`, { key: user.apiKey });
    expect(reply.body.post.url).toBe(`https://i.example.com/${post.code}`);
  });
});

describe("PATCH /posts/{code}", () => {
  it("changes title, description and privacy for the owner", async () => {
    const post = await createTestPost(owner.id, { privacy: "private" });
    const reply = await api(`/posts/${post.code}`, {
      method: "PATCH",
      key: owner.apiKey,
      body: { title: "New title", description: "About it", privacy: "unlisted" },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.post).toMatchObject({ title: "New title", description: "About it", privacy: "unlisted" });
  });

  it("rejects over-long text with 400 and leaves the post unchanged", async () => {
    const post = await createTestPost(owner.id, { title: "keep" });
    const long = await api(`/posts/${post.code}`, { method: "PATCH", key: owner.apiKey, body: { title: "x".repeat(31) } });
    expect(long.status).toBe(400);
    const desc = await api(`/posts/${post.code}`, { method: "PATCH", key: owner.apiKey, body: { description: "y".repeat(201) } });
    expect(desc.status).toBe(400);
    const bad = await api(`/posts/${post.code}`, { method: "PATCH", key: owner.apiKey, body: { privacy: "hidden" } });
    expect(bad.status).toBe(400);
    expect((await api(`/posts/${post.code}`, { key: owner.apiKey })).body.post.title).toBe("keep");
  });

  it("403 forbidden for a visible post of someone else, 404 for a hidden one", async () => {
    const pub = await createTestPost(owner.id, { privacy: "public" });
    const priv = await createTestPost(owner.id, { privacy: "private" });
    const a = await api(`/posts/${pub.code}`, { method: "PATCH", key: other.apiKey, body: { title: "x" } });
    expect(a.status).toBe(403);
    expect(a.body.error.type).toBe("forbidden");
    expect((await api(`/posts/${priv.code}`, { method: "PATCH", key: other.apiKey, body: { title: "x" } })).status).toBe(404);
  });

  it("a moderated post cannot be modified (403 moderated)", async () => {
    const post = await createTestPost(owner.id, { moderated: true });
    const reply = await api(`/posts/${post.code}`, { method: "PATCH", key: owner.apiKey, body: { title: "x" } });
    expect(reply.status).toBe(403);
    expect(reply.body.error.type).toBe("moderated");
    expect((await api(`/posts/${post.code}`, { method: "DELETE", key: owner.apiKey })).body.error.type).toBe("moderated");
  });

  it("a restricted post asked to become public becomes unlisted", async () => {
    const post = await createTestPost(owner.id, { privacy: "private", restricted: true });
    const reply = await api(`/posts/${post.code}`, { method: "PATCH", key: owner.apiKey, body: { privacy: "public" } });
    expect(reply.body.post).toMatchObject({ privacy: "unlisted", restricted: true });
  });

  it("team posts stay private; the team key can edit them", async () => {
    const team = await createTestTeam(owner.id);
    const post = await createTestPost(owner.id, { teamId: team.id });
    const reply = await api(`/posts/${post.code}`, { method: "PATCH", key: team.key, body: { privacy: "public", title: "team" } });
    expect(reply.status).toBe(200);
    expect(reply.body.post).toMatchObject({ privacy: "private", title: "team", team_id: team.id });
  });

  it("a flagged title quarantines the post", async () => {
    const { setModerator, ListModerator } = await import("@/lib/moderation/moderator");
    setModerator(new ListModerator(["forbiddenword"], []));
    try {
      const post = await createTestPost(owner.id, { privacy: "public" });
      const reply = await api(`/posts/${post.code}`, { method: "PATCH", key: owner.apiKey, body: { title: "a ForbiddenWord here" } });
      expect(reply.body.post.moderated).toBe(true);
      expect((await api(`/posts/${post.code}`, { key: other.apiKey })).body.error.type).toBe("moderated");
    } finally {
      setModerator(undefined);
    }
  });
});

describe("DELETE", () => {
  it("a post: its rows and stored bytes go", async () => {
    const { storage } = await import("@/lib/storage");
    const post = await createTestPost(owner.id, { files: 2 });
    expect((await api(`/posts/${post.code}`, { method: "DELETE", key: other.apiKey })).status).toBe(403);
    const reply = await api(`/posts/${post.code}`, { method: "DELETE", key: owner.apiKey });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ code: post.code, deleted: true });
    expect((await api(`/posts/${post.code}`, { key: owner.apiKey })).status).toBe(404);
    for (const key of post.keys) expect(await storage().stat(key)).toBeNull();
    expect(await db().file.count({ where: { postId: post.id } })).toBe(0);
  });

  it("a file: removed and the rest re-indexed; the last file takes the post with it", async () => {
    const { storage } = await import("@/lib/storage");
    const post = await createTestPost(owner.id, { files: 3 });
    const reply = await api(`/posts/${post.code}/files/${post.names[0]}`, { method: "DELETE", key: owner.apiKey });
    expect(reply.body).toEqual({ name: post.names[0], deleted: true });
    expect(await storage().stat(post.keys[0])).toBeNull();
    const after = (await api(`/posts/${post.code}`, { key: owner.apiKey })).body.post;
    expect(after.file_count).toBe(2);
    expect(after.files.map((f: { name: string }) => f.name)).toEqual(post.names.slice(1));
    expect((await api(`/posts/${post.code}/files/nope.png`, { method: "DELETE", key: owner.apiKey })).status).toBe(404);
    await api(`/posts/${post.code}/files/${post.names[1]}`, { method: "DELETE", key: owner.apiKey });
    await api(`/posts/${post.code}/files/${post.names[2]}`, { method: "DELETE", key: owner.apiKey });
    expect((await api(`/posts/${post.code}`, { key: owner.apiKey })).status).toBe(404);
  });
});
