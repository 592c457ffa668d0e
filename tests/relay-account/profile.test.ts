/**
 * PATCH /users/@me (nickname, bio, theme, link_domain; the profile and theme rate limits)
 * and GET/PATCH /preferences. One file rather than two: each test file pays a few seconds
 * of start-up.
 */
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { BUCKETS } from "@/lib/ratelimit";
import { readPreferences } from "@/lib/users/preferences";
import { BIO_MAX_LENGTH, NICKNAME_MAX_LENGTH, THEME_MAX_BYTES } from "@/lib/users/profile-edit";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestPost, createTestUser, type TestUser } from "../support/fixtures";
import { relay, type Reply } from "../support/http";
import { freshName } from "./support";

useTestDatabase();
useCounterStore({ perTest: true });

const patch = (user: TestUser, body: object) => relay("/users/@me", { method: "PATCH", key: user.relayKey, body });

function expectInvalid(reply: Reply, message?: RegExp): void {
  expect(reply.status, reply.text).toBe(400);
  expect(reply.body.error.type).toBe("invalid_request");
  if (message) expect(reply.body.error.message).toMatch(message);
}

describe("nickname and bio", () => {
  it("updates them and returns {user}, the full own account", async () => {
    const user = await createTestUser();
    const reply = await patch(user, { nickname: "  Ada  ", bio: "Hello\nthere 👋" });
    expect(reply.status, reply.text).toBe(200);
    expect(Object.keys(reply.body)).toEqual(["user"]);
    expect(reply.body.user).toMatchObject({ id: user.id, username: user.username, nickname: "Ada", bio: "Hello\nthere 👋" });
    expect(reply.body.user.limits.usage.resets_at).toBeDefined();
    expect(reply.body.user.key_has_uploads_access).toBe(true);
    const me = await relay("/users/@me", { key: user.relayKey });
    expect(me.body).toMatchObject({ nickname: "Ada", bio: "Hello\nthere 👋" });
  });

  it("leaves fields that are not sent alone; null or blank clears (the nickname falls back to the username)", async () => {
    const user = await createTestUser();
    await patch(user, { nickname: "Ada", bio: "Bio" });
    expect((await patch(user, { bio: "New bio" })).body.user).toMatchObject({ nickname: "Ada", bio: "New bio" });
    expect((await patch(user, { nickname: null, bio: "   " })).body.user).toMatchObject({ nickname: user.username, bio: null });
    expect((await patch(user, {})).status).toBe(200);
  });

  it("rejects over-long text with 400 (never truncates), counting characters not bytes", async () => {
    const user = await createTestUser();
    expectInvalid(await patch(user, { nickname: "n".repeat(NICKNAME_MAX_LENGTH + 1) }), /nickname/);
    expectInvalid(await patch(user, { bio: "b".repeat(BIO_MAX_LENGTH + 1) }), /bio/);
    expect((await patch(user, { nickname: "😀".repeat(NICKNAME_MAX_LENGTH), bio: "é".repeat(BIO_MAX_LENGTH) })).status).toBe(200);
    const row = await db().user.findUniqueOrThrow({ where: { id: user.id } });
    expect([...row.nickname!]).toHaveLength(NICKNAME_MAX_LENGTH);
  });

  it("rejects control characters, line breaks in nicknames, wrong types and unknown fields", async () => {
    const user = await createTestUser();
    expectInvalid(await patch(user, { nickname: "two\nlines" }));
    expectInvalid(await patch(user, { nickname: "bell\u0007" }));
    expectInvalid(await patch(user, { bio: "nul\u0000" }));
    expectInvalid(await patch(user, { nickname: 42 }));
    expectInvalid(await patch(user, { username: "renamed" }), /username/);
    expect((await db().user.findUniqueOrThrow({ where: { id: user.id } })).nickname).toBeNull();
  });
});

describe("theme", () => {
  it("stores any JSON value as JSON text and returns it as JSON; null clears it", async () => {
    const user = await createTestUser();
    const theme = { accent: "#ff3366", dark: true, sizes: [1, 2.5], nested: { font: "Inter" } };
    expect((await patch(user, { theme })).body.user.theme).toEqual(theme);
    expect((await db().user.findUniqueOrThrow({ where: { id: user.id } })).theme).toBe(JSON.stringify(theme));
    expect((await relay("/users/@me", { key: user.relayKey })).body.theme).toEqual(theme);
    expect((await patch(user, { theme: "midnight" })).body.user.theme).toBe("midnight");
    expect((await patch(user, { theme: 7 })).body.user.theme).toBe(7);
    expect((await patch(user, { theme: null })).body.user.theme).toBeNull();
  });

  it(`rejects a theme over ${THEME_MAX_BYTES} bytes of JSON`, async () => {
    const user = await createTestUser();
    expectInvalid(await patch(user, { theme: { blob: "x".repeat(THEME_MAX_BYTES) } }), /theme/);
    expect((await patch(user, { theme: { blob: "x".repeat(THEME_MAX_BYTES - 20) } })).status).toBe(200);
  });
});

describe("link_domain", () => {
  it("stores a normalised host name and uses it for the user's share URLs", async () => {
    const user = await createTestUser();
    const domain = `${freshName("links")}.Example.COM.`;
    const reply = await patch(user, { link_domain: ` ${domain} ` });
    expect(reply.status, reply.text).toBe(200);
    const stored = domain.toLowerCase().replace(/\.$/, "");
    expect(reply.body.user.link_domain).toBe(stored);
    const post = await createTestPost(user.id, { privacy: "public" });
    // Used once its DNS proof was seen (tests/relay-account/link-domain-proof.test.ts).
    expect(reply.body.user.link_domain_verified).toBe(false);
    await db().user.update({ where: { id: user.id }, data: { linkDomainVerifiedAt: new Date() } });
    const read = await relay(`/posts/${post.code}`, { key: user.relayKey });
    expect(read.body.post.url).toBe(`https://${stored}/${post.code}`);
    expect((await patch(user, { link_domain: null })).body.user.link_domain).toBeNull();
  });

  it("stores internationalised names in punycode", async () => {
    const user = await createTestUser();
    const reply = await patch(user, { link_domain: `bücher-${freshName("x")}.example` });
    expect(reply.body.user.link_domain).toMatch(/^xn--/);
  });

  it.each([
    ["https://links.example.com", /https/],
    ["links.example.com/path", /path/],
    ["links.example.com:8443", /port/],
    ["user@links.example.com", /host name/],
    ["localhost", /host name/],
    ["example", /host name/],
    ["192.0.2.1", /host name/],
    ["-bad-.example.com", /host name/],
    ["under_score.example.com", /host name/],
    ["a..b.com", /host name/],
    [`${"a".repeat(64)}.com`, /host name/],
    ["localhost.", /host name/],
  ])("rejects %s", async (value, message) => {
    const user = await createTestUser();
    expectInvalid(await patch(user, { link_domain: value }), message);
  });

  it("refuses this service's own host name", async () => {
    const user = await createTestUser();
    const own = new URL(process.env.PUBLIC_URL || "http://localhost:3000").hostname;
    expectInvalid(await patch(user, { link_domain: own.includes(".") ? own : "localhost" }));
  });

  it("is unique: another account's domain is a 400 with a clear message; one's own can be set again", async () => {
    const [a, b] = [await createTestUser(), await createTestUser()];
    const domain = `${freshName("taken")}.example.org`;
    expect((await patch(a, { link_domain: domain })).status).toBe(200);
    // Proven, it is taken (a pending claim blocks nobody: link-domain-proof.test.ts).
    await db().user.update({ where: { id: a.id }, data: { linkDomainVerifiedAt: new Date() } });
    expectInvalid(await patch(b, { link_domain: domain.toUpperCase() }), /already used/);
    expect((await patch(a, { link_domain: domain, nickname: "A" })).status).toBe(200);
    // Freed once the owner clears it.
    await patch(a, { link_domain: null });
    expect((await patch(b, { link_domain: domain })).status).toBe(200);
  });
});

describe("profile rate limits", () => {
  it(`profile updates: ${BUCKETS.profile_update.limit} a minute, then 429`, async () => {
    const user = await createTestUser();
    for (let i = 0; i < BUCKETS.profile_update.limit; i++) {
      const reply = await patch(user, { nickname: `n${i}` });
      expect(reply.status).toBe(200);
      expect(reply.headers.get("x-ratelimit-limit")).toBe(String(BUCKETS.profile_update.limit));
    }
    const refused = await patch(user, { bio: "one more" });
    expect(refused.status).toBe(429);
    expect(refused.body.error.type).toBe("rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // A theme-only change has its own bucket.
    expect((await patch(user, { theme: "dark" })).status).toBe(200);
  });

  it(`theme-only updates: ${BUCKETS.theme_update.limit} a minute, then 429; a theme with other fields is a profile update`, async () => {
    const user = await createTestUser();
    for (let i = 0; i < BUCKETS.theme_update.limit; i++) {
      const reply = await patch(user, { theme: { i } });
      expect(reply.status).toBe(200);
      expect(reply.headers.get("x-ratelimit-limit")).toBe(String(BUCKETS.theme_update.limit));
    }
    const refused = await patch(user, { theme: { i: "over" } });
    expect(refused.status).toBe(429);
    expect(refused.body.error.type).toBe("rate_limited");
    const mixed = await patch(user, { theme: { i: "mixed" }, nickname: "x" });
    expect(mixed.status).toBe(200);
    expect(mixed.headers.get("x-ratelimit-limit")).toBe(String(BUCKETS.profile_update.limit));
  });
});

// ───────────────────────────── preferences ─────────────────────────────

const ALL_ON = { likes: true, comments: true, comment_likes: true, follows: true };
const getPreferences = (user: TestUser) => relay("/preferences", { key: user.relayKey });
const patchPreferences = (user: TestUser, body: object) => relay("/preferences", { method: "PATCH", key: user.relayKey, body });

describe("GET and PATCH /preferences", () => {
  it("are all on by default, without writing a row", async () => {
    const user = await createTestUser();
    const reply = await getPreferences(user);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual(ALL_ON);
    expect(await db().notificationPreference.findUnique({ where: { userId: user.id } })).toBeNull();
  });

  it("PATCH changes only the given kinds and returns all of them; GET and the table agree", async () => {
    const user = await createTestUser();
    const first = await patchPreferences(user, { likes: false, comment_likes: false });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ likes: false, comments: true, comment_likes: false, follows: true });
    const second = await patchPreferences(user, { follows: false, likes: true });
    expect(second.body).toEqual({ likes: true, comments: true, comment_likes: false, follows: false });
    expect((await getPreferences(user)).body).toEqual(second.body);
    // What notification delivery reads.
    expect(await db().notificationPreference.findUniqueOrThrow({ where: { userId: user.id } })).toMatchObject({
      likes: true,
      comments: true,
      commentLikes: false,
      follows: false,
    });
    expect(await readPreferences(user.id)).toEqual({ likes: true, comments: true, commentLikes: false, follows: false });
  });

  it("an empty PATCH changes nothing; other users are unaffected", async () => {
    const [a, b] = [await createTestUser(), await createTestUser()];
    await patchPreferences(a, { comments: false });
    expect((await patchPreferences(a, {})).body).toEqual({ ...ALL_ON, comments: false });
    expect((await getPreferences(b)).body).toEqual(ALL_ON);
  });

  it("rejects unknown kinds and non-boolean values with 400", async () => {
    const user = await createTestUser();
    for (const body of [{ likes: "false" }, { likes: 0 }, { follows: null }, { mentions: false }]) {
      const reply = await patchPreferences(user, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.error.type).toBe("invalid_request");
    }
    expect((await getPreferences(user)).body).toEqual(ALL_ON);
  });
});

describe("preferences rate limits", () => {
  it(`GET: ${BUCKETS.preferences_get.limit} a minute, then 429; PATCH counts separately`, async () => {
    const user = await createTestUser();
    for (let i = 0; i < BUCKETS.preferences_get.limit; i++) {
      const reply = await getPreferences(user);
      expect(reply.status).toBe(200);
      expect(reply.headers.get("x-ratelimit-remaining")).toBe(String(BUCKETS.preferences_get.limit - 1 - i));
    }
    const refused = await getPreferences(user);
    expect(refused.status).toBe(429);
    expect(refused.body.error.type).toBe("rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await patchPreferences(user, { likes: false })).status).toBe(200);
  });

  it(`PATCH: ${BUCKETS.preferences_update.limit} a minute, then 429; GET counts separately`, async () => {
    const user = await createTestUser();
    for (let i = 0; i < BUCKETS.preferences_update.limit; i++) {
      expect((await patchPreferences(user, { likes: i % 2 === 0 })).status).toBe(200);
    }
    const refused = await patchPreferences(user, { likes: true });
    expect(refused.status).toBe(429);
    expect(refused.body.error.type).toBe("rate_limited");
    expect((await getPreferences(user)).status).toBe(200);
  });
});
