/** POST/DELETE /users/@me/avatar and /users/@me/banner: processing, storage cleanup, limits. */
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { BUCKETS } from "@/lib/ratelimit";
import { serveCdn } from "@/lib/routes/cdn";
import { storage } from "@/lib/storage";
import { PROFILE_IMAGES } from "@/lib/users/images";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser, type TestUser } from "../support/fixtures";
import { relay, type Reply } from "../support/http";
import { fixture, type FixtureName } from "../support/media";
import { form } from "../support/multipart";

useTestDatabase();
useCounterStore({ perTest: true });

type Kind = "avatar" | "banner";

async function upload(user: TestUser, kind: Kind, name: FixtureName, field = "file"): Promise<Reply> {
  const body = await form([{ path: await fixture(name), field }]);
  return relay(`/users/@me/${kind}`, { method: "POST", key: user.relayKey, rawBody: body });
}

const remove = (user: TestUser, kind: Kind) => relay(`/users/@me/${kind}`, { method: "DELETE", key: user.relayKey });

async function download(url: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const res = await serveCdn(new Request(url));
  return { status: res.status, type: res.headers.get("content-type"), bytes: Buffer.from(await res.arrayBuffer()) };
}

/** The storage key behind a /cdn/u/... URL. */
const keyOf = (url: string) => decodeURIComponent(new URL(url).pathname.replace(/^\/cdn\//, ""));

async function storedKeys(userId: string): Promise<{ avatarKey: string | null; bannerKey: string | null }> {
  return db().user.findUniqueOrThrow({ where: { id: userId }, select: { avatarKey: true, bannerKey: true } });
}

function expectError(reply: Reply, status: number, type: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body.error.type).toBe(type);
}

describe("avatar upload", () => {
  it("resizes to a square WebP without metadata and returns {user} with its public URL", async () => {
    const user = await createTestUser();
    const reply = await upload(user, "avatar", "jpegExif");
    expect(reply.status, reply.text).toBe(200);
    expect(Object.keys(reply.body)).toEqual(["user"]);
    const url: string = reply.body.user.avatar;
    expect(url).toMatch(new RegExp(`/cdn/u/${user.id}/avatar-[0-9a-f]+\\.webp$`));
    const file = await download(url);
    expect(file.status).toBe(200);
    expect(file.type).toBe("image/webp");
    const meta = await sharp(file.bytes).metadata();
    expect(meta).toMatchObject({ format: "webp", width: PROFILE_IMAGES.avatar.width, height: PROFILE_IMAGES.avatar.height });
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(meta.icc).toBeUndefined();
    expect(file.bytes.includes(Buffer.from("TestCam"))).toBe(false);
    // The profile as others see it carries the same URL.
    const other = await createTestUser();
    expect((await relay(`/users/${user.id}`, { key: other.relayKey })).body.avatar).toBe(url);
  });

  it("applies EXIF orientation before cropping", async () => {
    // 40x20 with orientation 6: shown as 20x40, red on top and blue below.
    const user = await createTestUser();
    const reply = await upload(user, "avatar", "jpegOriented");
    const { data, info } = await sharp((await download(reply.body.user.avatar)).bytes)
      .raw()
      .toBuffer({ resolveWithObject: true });
    const pixel = (x: number, y: number) => [
      ...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3),
    ];
    const [top, bottom] = [pixel(256, 100), pixel(256, 412)];
    expect(top[0]).toBeGreaterThan(200);
    expect(top[2]).toBeLessThan(60);
    expect(bottom[2]).toBeGreaterThan(200);
    expect(bottom[0]).toBeLessThan(60);
  });

  it("keeps GIF animation as an animated WebP", async () => {
    const user = await createTestUser();
    const reply = await upload(user, "avatar", "gifAnimated");
    expect(reply.status, reply.text).toBe(200);
    const meta = await sharp((await download(reply.body.user.avatar)).bytes, { animated: true }).metadata();
    expect(meta.format).toBe("webp");
    expect(meta.pages).toBe(5);
    expect(meta.width).toBe(512);
    expect(meta.pageHeight).toBe(512);
  });

  it("accepts PNG, WebP and a static GIF, detected from the bytes", async () => {
    const user = await createTestUser();
    for (const name of ["png", "webp", "gif"] as const) {
      const reply = await upload(user, "avatar", name);
      expect(reply.status, `${name}: ${reply.text}`).toBe(200);
    }
  });

  it("refuses what is not an image: 400 unsupported_type; corrupt images 400 invalid_request", async () => {
    const user = await createTestUser();
    expectError(await upload(user, "avatar", "textPng"), 400, "unsupported_type");
    expectError(await upload(user, "avatar", "corruptPng"), 400, "invalid_request");
    expect((await storedKeys(user.id)).avatarKey).toBeNull();
  });

  it("needs a file in field `file`", async () => {
    const user = await createTestUser();
    expectError(await upload(user, "avatar", "png", "image"), 400, "invalid_request");
    expectError(await relay("/users/@me/avatar", { method: "POST", key: user.relayKey, body: {} }), 400, "invalid_request");
  });

  it(`refuses files over ${PROFILE_IMAGES.avatar.maxBytes} bytes with 413`, async () => {
    const user = await createTestUser();
    const fd = new FormData();
    fd.append("file", new Blob([Buffer.alloc(PROFILE_IMAGES.avatar.maxBytes + 1, 1)]), "big.png");
    expectError(await relay("/users/@me/avatar", { method: "POST", key: user.relayKey, rawBody: fd }), 413, "file_too_large");
  });
});

describe("banner upload", () => {
  it("crops to 1500x500 WebP and returns {user} with the banner URL", async () => {
    const user = await createTestUser();
    const reply = await upload(user, "banner", "png");
    expect(reply.status, reply.text).toBe(200);
    const url: string = reply.body.user.banner;
    expect(url).toMatch(new RegExp(`/cdn/u/${user.id}/banner-[0-9a-f]+\\.webp$`));
    const meta = await sharp((await download(url)).bytes).metadata();
    expect(meta).toMatchObject({ format: "webp", width: 1500, height: 500 });
    expect(reply.body.user.avatar).toMatch(/default-avatar/);
  });
});

describe("replacing and removing", () => {
  it.each(["avatar", "banner"] as const)("%s: a new upload removes the old file from storage", async (kind) => {
    const user = await createTestUser();
    const first = keyOf((await upload(user, kind, "png")).body.user[kind]);
    expect(await storage().stat(first)).not.toBeNull();
    const second = keyOf((await upload(user, kind, "webp")).body.user[kind]);
    expect(second).not.toBe(first);
    expect(await storage().stat(second)).not.toBeNull();
    expect(await storage().stat(first)).toBeNull();
    expect((await download(`http://localhost/cdn/${first}`)).status).toBe(404);
  });

  it("DELETE avatar: back to the default avatar, file removed; repeating is fine", async () => {
    const user = await createTestUser();
    const key = keyOf((await upload(user, "avatar", "png")).body.user.avatar);
    const reply = await remove(user, "avatar");
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.user.avatar).toMatch(/\/default-avatar\.svg$/);
    expect(await storage().stat(key)).toBeNull();
    expect((await storedKeys(user.id)).avatarKey).toBeNull();
    expect((await remove(user, "avatar")).status).toBe(200);
  });

  it("DELETE banner: banner null, file removed, avatar untouched", async () => {
    const user = await createTestUser();
    const avatar = (await upload(user, "avatar", "png")).body.user.avatar;
    const key = keyOf((await upload(user, "banner", "png")).body.user.banner);
    const reply = await remove(user, "banner");
    expect(reply.body.user.banner).toBeNull();
    expect(reply.body.user.avatar).toBe(avatar);
    expect(await storage().stat(key)).toBeNull();
  });

  it("a failed upload keeps the current image", async () => {
    const user = await createTestUser();
    const url = (await upload(user, "avatar", "png")).body.user.avatar;
    await upload(user, "avatar", "textPng");
    expect((await relay("/users/@me", { key: user.relayKey })).body.avatar).toBe(url);
    expect(await storage().stat(keyOf(url))).not.toBeNull();
  });

  it("concurrent uploads leave exactly one live file", async () => {
    const user = await createTestUser();
    const replies = await Promise.all([upload(user, "avatar", "png"), upload(user, "avatar", "webp"), upload(user, "avatar", "gif")]);
    for (const r of replies) expect(r.status, r.text).toBe(200);
    const live = (await storedKeys(user.id)).avatarKey!;
    const keys = replies.map((r) => keyOf(r.body.user.avatar));
    const all = [...new Set([...keys, live])];
    const present = (await Promise.all(all.map((k) => storage().stat(k)))).filter((s) => s !== null);
    expect(present).toHaveLength(1);
    expect(await storage().stat(live)).not.toBeNull();
  });
});

describe("rate limits", () => {
  it.each(["avatar", "banner"] as const)(`%s: ${BUCKETS.avatar.limit} a minute (upload and removal together), then 429`, async (kind) => {
    const user = await createTestUser();
    const bucket = BUCKETS[kind];
    // Removals are cheap and share the bucket with uploads, so they count it down.
    for (let i = 0; i < bucket.limit; i++) {
      const reply = await remove(user, kind);
      expect(reply.status).toBe(200);
      expect(reply.headers.get("x-ratelimit-remaining")).toBe(String(bucket.limit - 1 - i));
    }
    expectError(await upload(user, kind, "pngPlain"), 429, "rate_limited");
    expectError(await remove(user, kind), 429, "rate_limited");
    // The other image has its own bucket.
    expect((await remove(user, kind === "avatar" ? "banner" : "avatar")).status).toBe(200);
  });
});
