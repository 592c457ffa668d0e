/** POST /upload with real media: the pipeline, the reply shapes, privacy, partial failures. */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { dataDir } from "@/lib/db/config";
import { serveCdn } from "@/lib/routes/cdn";
import { utcDay, userSubject } from "@/lib/usage/window";
import { withTempDir } from "@/lib/files/temp";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser, type TestUser } from "../support/fixtures";
import { api, relay } from "../support/http";
import { fixture, scratchDir, SECRET, topLevelBoxes } from "../support/media";
import { form, type Part } from "../support/multipart";

useTestDatabase();
useCounterStore();

let _user: TestUser;
beforeAll(async () => {
  _user = await createTestUser({ plan: "ultra" });
});

/** Each upload as a fresh user, so the 20/30 s limit and the burst guard stay out of the way. */
async function upload(parts: Part[], headers: Record<string, string> = {}, as?: TestUser) {
  const who = as ?? (await createTestUser({ plan: "ultra" }));
  return api("/upload", { method: "POST", key: who.apiKey, rawBody: await form(parts), headers });
}

async function download(url: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const res = await serveCdn(new Request(url));
  return { status: res.status, type: res.headers.get("content-type"), bytes: Buffer.from(await res.arrayBuffer()) };
}

describe("single image, ShareX style", () => {
  it("returns {url, post}: url is the direct file, post.url the share page, private by default", async () => {
    const reply = await upload([{ path: await fixture("png"), name: "Screenshot 2026.png", type: "image/png" }]);
    expect(reply.status, reply.text).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(["post", "url"]);
    const { url, post } = reply.body;
    expect(post.privacy).toBe("private");
    expect(post.url).toMatch(new RegExp(`/p/${post.code}$`));
    expect(post.code).toMatch(/^[A-Za-z0-9]{10}$/);
    expect(url).toBe(post.files[0].url);
    expect(url).toContain(`/cdn/${post.code}/`);
    expect(post.files[0]).toMatchObject({ name: "Screenshot_2026.png", mime_type: "image/png", width: 64, height: 48 });
    // Images' thumbnail_url is their grid-sized rendition, signed like the file (docs/renditions.md).
    expect(post.files[0].thumbnail_url).toMatch(new RegExp(`/cdn/${post.code}/r/320/Screenshot_2026\\.png\\.webp\\?exp=\\d+&sig=`));
    expect(post.file_count).toBe(1);
    const file = await download(url);
    expect(file.status).toBe(200);
    expect(file.type).toBe("image/png");
    expect(file.bytes.length).toBe(post.files[0].size);
    expect((await sharp(file.bytes).metadata()).width).toBe(64);
  });

  it("the reply's post is exactly what a later read of the post returns (it is built from the rows written)", async () => {
    const who = await createTestUser({ plan: "ultra" });
    const reply = await upload([{ path: await fixture("jpegExif") }, { path: await fixture("mp4") }], { "post-privacy": "public" }, who);
    expect(reply.status, reply.text).toBe(200);
    const read = await api(`/posts/${reply.body.post.code}`, { key: who.apiKey });
    expect(read.status).toBe(200);
    expect(reply.body.post).toEqual(read.body.post);
  });

  it("an MP4 that needs no remux is stored fast-start and without its metadata (moved, not re-muxed)", async () => {
    const reply = await upload([{ path: await fixture("mp4"), name: "clip.mp4" }]);
    expect(reply.status, reply.text).toBe(200);
    const stored = (await download(reply.body.url)).bytes;
    const dir = await scratchDir();
    const mp4 = join(dir, "stored.mp4");
    await writeFile(mp4, stored);
    const boxes = await topLevelBoxes(mp4);
    expect(boxes.indexOf("moov")).toBeLessThan(boxes.indexOf("mdat"));
    expect(stored.includes(Buffer.from(SECRET.title))).toBe(false);
    expect(stored.includes(Buffer.from(SECRET.location))).toBe(false);
    expect(reply.body.post.files[0]).toMatchObject({ mime_type: "video/mp4", width: 320, height: 240 });
    expect(reply.body.post.files[0].size).toBe(stored.length);
  });

  it("honours post-privacy (trimmed, case-insensitive); public URLs are unsigned", async () => {
    const reply = await upload([{ path: await fixture("pngPlain") }], { "post-privacy": " Public " });
    expect(reply.body.post.privacy).toBe("public");
    expect(reply.body.url).not.toContain("sig=");
    expect((await download(reply.body.url)).status).toBe(200);
  });

  it("detects the type from the bytes: a JPEG named .png is stored as .jpg", async () => {
    const reply = await upload([{ path: await fixture("jpegExif"), name: "photo.png", type: "image/png" }]);
    expect(reply.body.post.files[0]).toMatchObject({ name: "photo.jpg", mime_type: "image/jpeg" });
  });

  it("applies JPEG orientation and strips EXIF and GPS", async () => {
    const reply = await upload([{ path: await fixture("jpegOriented") }]);
    expect(reply.body.post.files[0]).toMatchObject({ width: 20, height: 40 });
    const meta = await sharp((await download(reply.body.url)).bytes).metadata();
    expect(meta.width).toBe(20);
    expect(meta.exif).toBeUndefined();
    expect(meta.orientation ?? 1).toBe(1);
  });

  it("keeps metadata with include-metadata: true", async () => {
    const reply = await upload([{ path: await fixture("jpegExif") }], { "include-metadata": "TRUE" });
    const bytes = (await download(reply.body.url)).bytes;
    expect((await sharp(bytes).metadata()).exif).toBeDefined();
    expect(bytes.includes(Buffer.from(SECRET.make))).toBe(true);
  });
});

describe("videos and albums", () => {
  it("an album keeps request order; videos become fast-start MP4 with a thumbnail", async () => {
    const reply = await upload([
      { path: await fixture("png"), name: "a.png" },
      { path: await fixture("gifAnimated"), name: "b.gif" },
      { path: await fixture("mov"), name: "c.mov" },
    ]);
    expect(reply.status, reply.text).toBe(200);
    const { post } = reply.body;
    expect(post.file_count).toBe(3);
    expect(post.files.map((f: { name: string }) => f.name)).toEqual(["a.png", "b.gif", "c.mp4"]);
    const video = post.files[2];
    expect(video).toMatchObject({ mime_type: "video/mp4", width: 320, height: 240 });
    expect(video.thumbnail_url).toMatch(/\/thumbs\/c\.mp4\.jpg\?/);
    // The video is on adaptive delivery from the reply on, its stream queued (docs/priority-delivery.md).
    expect(post.priority).toBe(true);
    expect(post.files.map((f: { stream_state: string | null }) => f.stream_state)).toEqual([null, null, "queued"]);
    const dir = await scratchDir();
    const mp4 = join(dir, "out.mp4");
    await writeFile(mp4, (await download(video.url)).bytes);
    const boxes = await topLevelBoxes(mp4);
    expect(boxes.indexOf("moov")).toBeLessThan(boxes.indexOf("mdat"));
    expect((await readFile(mp4)).includes(Buffer.from(SECRET.title))).toBe(false);
    const thumb = await download(video.thumbnail_url);
    expect(thumb.type).toBe("image/jpeg");
    expect((await sharp(thumb.bytes).metadata()).format).toBe("jpeg");
  });

  it("MKV becomes MP4; animated GIF and WebP keep their frames", async () => {
    const reply = await upload([
      { path: await fixture("mkv"), name: "game.mkv" },
      { path: await fixture("gifAnimated"), name: "dance.gif" },
      { path: await fixture("webpAnimated"), name: "loop.webp" },
      { path: await fixture("mkvMpeg2"), name: "old.mkv" },
    ]);
    expect(reply.status, reply.text).toBe(200);
    const [mkv, gif, webp, mpeg2] = reply.body.post.files;
    expect(mkv).toMatchObject({ name: "game.mp4", mime_type: "video/mp4", width: 320, height: 240 });
    expect(mpeg2).toMatchObject({ name: "old.mp4", mime_type: "video/mp4" });
    expect(gif).toMatchObject({ mime_type: "image/gif", width: 64, height: 48 });
    expect(webp).toMatchObject({ mime_type: "image/webp", width: 64, height: 48 });
    for (const f of [gif, webp]) {
      const meta = await sharp((await download(f.url)).bytes, { animated: true }).metadata();
      expect(meta.pages).toBe(5);
    }
  });

  it("WebM (a browser recording, VP8) is accepted with the default settings: stored as a fast-start MP4, no temp left", async () => {
    // The smallest WebM fixture: the codec cases are tests/media/video.test.ts's.
    const reply = await upload([{ path: await fixture("webm"), name: "OBS recording.webm", type: "video/webm" }]);
    expect(reply.status, reply.text).toBe(200);
    const [file] = reply.body.post.files;
    expect(file).toMatchObject({ name: "OBS_recording.mp4", mime_type: "video/mp4", width: 160, height: 120 });
    expect(file.thumbnail_url).toMatch(/\/thumbs\/OBS_recording\.mp4\.jpg/);
    const stored = await download(file.url);
    expect(stored.type).toBe("video/mp4");
    const dir = await scratchDir();
    await writeFile(join(dir, "w.mp4"), stored.bytes);
    const boxes = await topLevelBoxes(join(dir, "w.mp4"));
    expect(boxes.indexOf("moov")).toBeLessThan(boxes.indexOf("mdat"));
    await rm(dir, { recursive: true, force: true });
    expect(await readdir(join(dataDir(), "tmp")).catch(() => [])).toEqual([]);
  });

  it("post-type single makes one post per file", async () => {
    const reply = await upload([{ path: await fixture("png") }, { path: await fixture("webp") }], { "post-type": "single" });
    expect(reply.status).toBe(200);
    expect(reply.body.posts).toHaveLength(2);
    expect(reply.body).not.toHaveProperty("url");
    expect(reply.body.posts.map((p: { file_count: number }) => p.file_count)).toEqual([1, 1]);
  });

  it("an album holds 9 files; the 10th lands in failed", async () => {
    const png = await fixture("pngPlain");
    const reply = await upload(Array.from({ length: 10 }, (_, i) => ({ path: png, name: `s${i}.png` })));
    expect(reply.status).toBe(200);
    expect(reply.body.post.file_count).toBe(9);
    expect(reply.body.failed).toEqual([{ index: 9, error: expect.objectContaining({ type: "invalid_request" }) }]);
  });
});

describe("failures", () => {
  it("one bad file among good ones: 200 with failed entries by index", async () => {
    const reply = await upload([{ path: await fixture("png") }, { path: await fixture("textPng") }, { path: await fixture("corruptPng") }]);
    expect(reply.status).toBe(200);
    expect(reply.body.post.file_count).toBe(1);
    expect(reply.body.failed).toEqual([
      { index: 1, error: expect.objectContaining({ type: "unsupported_type", message: expect.any(String) }) },
      { index: 2, error: expect.objectContaining({ type: "invalid_request" }) },
    ]);
  });

  it("a single failed file is the top-level error", async () => {
    const text = await upload([{ path: await fixture("textPng") }]);
    expect(text.status).toBe(400);
    expect(text.body.error.type).toBe("unsupported_type");
    const corrupt = await upload([{ path: await fixture("truncatedMp4") }]);
    expect(corrupt.status).toBe(400);
    expect(corrupt.body.error.type).toBe("invalid_request");
  });

  it("several files all failing: 400 upload_failed with the failed array", async () => {
    const reply = await upload([{ path: await fixture("textPng") }, { path: await fixture("corruptPng") }]);
    expect(reply.status).toBe(400);
    expect(reply.body.error.type).toBe("upload_failed");
    expect(reply.body.error.failed.map((f: { index: number }) => f.index)).toEqual([0, 1]);
    expect(reply.body.error.failed[0].error.type).toBe("unsupported_type");
  });

  it("bad headers, no file, or not multipart: 400 invalid_request", async () => {
    const png = await fixture("png");
    const bad: Record<string, string>[] = [
      { "include-metadata": "yes" },
      { "post-privacy": "secret" },
      { "post-type": "carousel" },
      { priority: "1" },
    ];
    for (const headers of bad) {
      const reply = await upload([{ path: png }], headers);
      expect(reply.status, JSON.stringify(headers)).toBe(400);
      expect(reply.body.error.type).toBe("invalid_request");
    }
    expect((await upload([{ path: png, field: "image" }])).body.error.type).toBe("invalid_request");
    const who = await createTestUser();
    const json = await api("/upload", { method: "POST", key: who.apiKey, body: { file: "x" } });
    expect(json.status).toBe(400);
  });

  it("leaves no temporary files behind", async () => {
    await upload([{ path: await fixture("png") }, { path: await fixture("textPng") }]);
    const left = await readdir(join(dataDir(), "tmp")).catch(() => []);
    expect(left).toEqual([]);
  });

  it("withTempDir makes DATA_DIR/tmp again after a tidy-up removed it (the root is made once per process)", async () => {
    // Its own DATA_DIR: the run's is shared with other test files' uploads in flight.
    const own = await mkdtemp(join(tmpdir(), "mediahost-tmp-root-"));
    const previous = process.env.DATA_DIR;
    process.env.DATA_DIR = own;
    try {
      expect(await withTempDir(async (dir) => dir.startsWith(join(own, "tmp")))).toBe(true);
      await rm(join(own, "tmp"), { recursive: true, force: true });
      expect(await withTempDir(async (dir) => dir.startsWith(join(own, "tmp")))).toBe(true);
      expect(await readdir(join(own, "tmp"))).toEqual([]);
    } finally {
      process.env.DATA_DIR = previous;
      await rm(own, { recursive: true, force: true });
    }
  });
});

describe("usage", () => {
  it("records successful uploads per UTC day and in the weekly window", async () => {
    const who = await createTestUser();
    const reply = await upload([{ path: await fixture("png") }, { path: await fixture("textPng") }], {}, who);
    const size = reply.body.post.files[0].size;
    const day = await db().usageDay.findUnique({ where: { subject_day: { subject: userSubject(who.id), day: utcDay() } } });
    expect(day).toMatchObject({ bytes: BigInt(size), uploadCount: 1 });
    const me = await api("/users/@me", { key: who.apiKey });
    expect(me.body.limits.usage.used).toBe(size);
    expect(me.body.upload_count).toBe(1);
  });

  it("parallel first uploads of the day all succeed and all count (the day's row is made once)", async () => {
    const who = await createTestUser({ plan: "ultra" });
    const png = await fixture("png");
    // Fresh accounts: neither the week's quota row nor the day's history row exists yet.
    const replies = await Promise.all(Array.from({ length: 4 }, () => upload([{ path: png }], {}, who)));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const size = replies[0].body.post.files[0].size;
    const day = await db().usageDay.findUnique({ where: { subject_day: { subject: userSubject(who.id), day: utcDay() } } });
    expect(day).toMatchObject({ bytes: BigInt(size * 4), uploadCount: 4 });
    expect((await db().user.findUniqueOrThrow({ where: { id: who.id } })).uploadCount).toBe(4);
  });

  it("priority with no minutes left: Relay refuses videos with 403 quota_exceeded; the API falls back", async () => {
    const who = await createTestUser();
    await db().user.update({ where: { id: who.id }, data: { priorityMinutes: 0 } });
    const mp4 = await fixture("mp4Silent");
    const viaRelay = await relay("/upload", { method: "POST", key: who.relayKey, rawBody: await form([{ path: mp4 }]) });
    expect(viaRelay.status).toBe(403);
    // The context fields are the weekly quota's, as interface.md defines them; the minutes' refill is in the message.
    const me = await api("/users/@me", { key: who.apiKey });
    expect(viaRelay.body.error).toMatchObject({
      type: "quota_exceeded",
      quota: me.body.limits.usage.quota,
      used: me.body.limits.usage.used,
      resets_at: me.body.limits.usage.resets_at,
    });
    expect(viaRelay.body.error.message).toContain(
      new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 1)).toISOString(),
    );
    const optOut = await relay("/upload", {
      method: "POST",
      key: who.relayKey,
      rawBody: await form([{ path: mp4 }]),
      headers: { priority: "false" },
    });
    expect(optOut.status).toBe(200);
    const viaApi = await upload([{ path: mp4 }], {}, who);
    expect(viaApi.status).toBe(200);
    expect(viaApi.body.post.priority).toBe(false);
  });
});
