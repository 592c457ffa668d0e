/**
 * Priority (adaptive) delivery end to end, in-process: a real 10 s 720p video uploaded
 * through the API, the real job worker and ffmpeg, delivery through /cdn. Renditions
 * (never upscaled), playlist validity, signed-only private streams, a restart of the
 * worker mid-job, minutes charged once, fallbacks to standard delivery.
 */
import { existsSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { resetEnv } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { dataDir } from "@/lib/db/config";
import { enqueueJob } from "@/lib/jobs";
import { HLS_JOB, hlsJobKey } from "@/lib/jobs/hls-job";
import { JobWorker } from "@/lib/jobs/worker";
import { jobHandlers } from "@/lib/jobs";
import { parseMediaPlaylist, planRenditions } from "@/lib/media/hls";
import { planLimits } from "@/lib/plans";
import { serveCdn } from "@/lib/routes/cdn";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser, type TestUser } from "../support/fixtures";
import { api, relay } from "../support/http";
import { ffmpeg, fixture, fixtureDir, probeJson, scratchDir } from "../support/media";
import { form } from "../support/multipart";

useTestDatabase();
useCounterStore();
// Each test waits for real transcodes (one at a time) on a shared 2-core machine.
vi.setConfig({ testTimeout: 360_000 });

let clip: string;
let worker: JobWorker | undefined;

beforeAll(async () => {
  process.env.JOB_RETRY_BASE_MS = "50";
  resetEnv();
  // The rules hold for any preset; the fastest keeps the suite quick.
  process.env.HLS_X264_PRESET = "ultrafast";
  // 10 s, 1280×720, H.264 + AAC: the size the rules are about, cheap to encode.
  clip = join(await fixtureDir(), "hls-720p-10s.mp4");
  if (!existsSync(clip)) {
    const tmp = `${clip}.${process.pid}.tmp.mp4`;
    await ffmpeg([
      "-f",
      "lavfi",
      "-i",
      "testsrc2=size=1280x720:rate=24:duration=10",
      "-f",
      "lavfi",
      "-i",
      "sine=frequency=440:duration=10",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-shortest",
      tmp,
    ]);
    await rename(tmp, clip);
  }
});

afterAll(async () => {
  await worker?.stop();
});

function startWorker(): JobWorker {
  worker = new JobWorker({ handlers: jobHandlers(), pollMs: 100, log: () => undefined });
  worker.start();
  return worker;
}

async function stopWorker(): Promise<void> {
  await worker?.stop();
  worker = undefined;
}

async function upload(headers: Record<string, string> = {}, who?: TestUser) {
  const user = who ?? (await createTestUser({ plan: "free" }));
  const reply = await api("/upload", {
    method: "POST",
    key: user.apiKey,
    rawBody: await form([{ path: clip, name: "clip.mp4", type: "video/mp4" }]),
    headers,
  });
  expect(reply.status, reply.text).toBe(200);
  return { user, post: reply.body.post };
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 330_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`condition not met in ${timeoutMs} ms: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const fileRow = (code: string) => db().file.findFirstOrThrow({ where: { post: { code } } });
const getPost = async (code: string, key: string) => (await api(`/posts/${code}`, { key })).body.post;
const fetchCdn = (url: string) => serveCdn(new Request(url));
const minutesLeft = async (userId: string) => (await db().user.findUniqueOrThrow({ where: { id: userId } })).priorityMinutes;

const FREE_MINUTES = planLimits("free").priorityMinutes;

describe("rendition ladder", () => {
  it("never upscales, keeps the orientation, even sizes", () => {
    expect(planRenditions(1280, 720).map((r) => r.name)).toEqual(["360p", "720p"]);
    expect(planRenditions(1920, 1080).map((r) => `${r.width}x${r.height}`)).toEqual(["640x360", "1280x720", "1920x1080"]);
    expect(planRenditions(1080, 1920).map((r) => `${r.width}x${r.height}`)).toEqual(["360x640", "720x1280", "1080x1920"]);
    expect(planRenditions(320, 240)).toEqual([{ name: "240p", width: 320, height: 240, maxrate: 900_000 }]);
  });
});

describe("a public priority video", () => {
  let code: string;
  let user: TestUser;

  it("answers at once with the MP4; on adaptive delivery from the reply on (priority true), the stream queued, stream_url null", async () => {
    const up = await upload({ "post-privacy": "public" });
    user = up.user;
    code = up.post.code;
    expect(up.post.priority).toBe(true);
    expect(up.post.files[0]).toMatchObject({ mime_type: "video/mp4", stream_url: null, stream_state: "queued" });
    expect(await db().job.count({ where: { key: hlsJobKey((await fileRow(code)).id) } })).toBe(1);
    // Every later read says the same while the stream is built, on the API and on Relay.
    const read = await getPost(code, user.apiKey);
    expect(read).toMatchObject({ priority: true, files: [{ stream_state: "queued", stream_url: null }] });
    const viaRelay = await relay(`/posts/${code}`, { key: user.relayKey });
    expect(viaRelay.status, viaRelay.text).toBe(200);
    expect(viaRelay.body.post).toMatchObject({ priority: true, files: [{ stream_state: "queued" }] });
    expect((await db().post.findUniqueOrThrow({ where: { code } })).priority).toBe(true);
  });

  it("survives a worker restart mid-job, then becomes ready: priority true, minutes charged", async () => {
    startWorker();
    await until(
      () => fileRow(code),
      (f) => f.streamState === "processing",
    );
    await stopWorker();
    const job = await db().job.findUniqueOrThrow({ where: { key: hlsJobKey((await fileRow(code)).id) } });
    expect(job.state).toBe("queued");
    expect(await minutesLeft(user.id)).toBeNull();

    startWorker();
    await until(
      () => fileRow(code),
      (f) => f.streamState === "ready",
    );
    const post = await getPost(code, user.apiKey);
    expect(post.priority).toBe(true);
    expect(post.files[0].stream_state).toBe("ready");
    expect(post.files[0].stream_url).toMatch(new RegExp(`/cdn/${code}/hls/clip\\.mp4/master\\.m3u8$`));
    // 10 s rounds up to one minute.
    expect(await minutesLeft(user.id)).toBe(FREE_MINUTES - 1);
    const me = await api("/users/@me", { key: user.apiKey });
    expect(me.body.limits.priority.minutes_left).toBe(FREE_MINUTES - 1);
  });

  it("serves a valid master playlist: 360p and 720p (no 1080p from a 720p source)", async () => {
    const post = await getPost(code, user.apiKey);
    const res = await fetchCdn(post.files[0].stream_url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.apple.mpegurl");
    const master = await res.text();
    expect(master.startsWith("#EXTM3U")).toBe(true);
    expect(master).toMatch(/RESOLUTION=640x360/);
    expect(master).toMatch(/RESOLUTION=1280x720/);
    expect(master).not.toMatch(/1920x1080/);
    expect(master).toMatch(/CODECS="avc1\.[0-9a-f]{6},mp4a\.40\.2"/);
  });

  it("every rendition: each listed segment exists (video/mp2t), 4–6 s segments, durations add up to the video", async () => {
    const post = await getPost(code, user.apiKey);
    const base = post.files[0].stream_url.replace(/master\.m3u8$/, "");
    const dir = await scratchDir();
    for (const name of ["360p", "720p"]) {
      const res = await fetchCdn(`${base}${name}.m3u8`);
      expect(res.status).toBe(200);
      const playlist = parseMediaPlaylist(await res.text());
      expect(playlist.ended).toBe(true);
      expect(playlist.targetDuration).toBeGreaterThanOrEqual(4);
      expect(playlist.targetDuration).toBeLessThanOrEqual(6);
      const total = playlist.segments.reduce((s, x) => s + x.duration, 0);
      expect(Math.abs(total - 10)).toBeLessThan(0.2);
      for (const [i, seg] of playlist.segments.entries()) {
        if (i < playlist.segments.length - 1) expect(seg.duration).toBeGreaterThanOrEqual(4);
        expect(seg.duration).toBeLessThanOrEqual(6);
        const s = await fetchCdn(`${base}${seg.uri}`);
        expect(s.status, seg.uri).toBe(200);
        expect(s.headers.get("content-type")).toBe("video/mp2t");
        const bytes = Buffer.from(await s.arrayBuffer());
        expect(bytes[0]).toBe(0x47); // MPEG-TS sync byte
        if (i === 0) {
          const path = join(dir, `${name}.ts`);
          await writeFile(path, bytes);
          // The shipped ffprobe 4.1 crashes on MPEG-TS input; ffmpeg reads it fine, so
          // copy the segment's streams into an MP4 (no re-encode) and probe that.
          await ffmpeg(["-f", "mpegts", "-i", path, "-c", "copy", `${path}.mp4`]);
          const probe = await probeJson(`${path}.mp4`);
          const video = probe.streams.find((x) => x.codec_type === "video");
          expect(video?.codec_name).toBe("h264");
          expect(video?.height).toBe(Number(name.slice(0, -1)));
          expect(probe.streams.find((x) => x.codec_type === "audio")?.codec_name).toBe("aac");
        }
      }
    }
  });

  it("charges the minutes once: running the job again changes nothing", async () => {
    const file = await fileRow(code);
    const again = await enqueueJob(HLS_JOB, { fileId: file.id }, { key: hlsJobKey(file.id) });
    worker?.wake();
    await until(
      () => db().job.findUniqueOrThrow({ where: { id: again.id } }),
      (j) => j.state === "done",
    );
    expect(await minutesLeft(user.id)).toBe(FREE_MINUTES - 1);
  });

  it("deleting the post removes the renditions from storage", async () => {
    const file = await fileRow(code);
    const folder = join(dataDir(), "files", ...file.streamKey!.slice(0, -1).split("/"));
    expect(existsSync(join(folder, "master.m3u8"))).toBe(true);
    expect((await api(`/posts/${code}`, { method: "DELETE", key: user.apiKey })).status).toBe(200);
    expect(existsSync(folder)).toBe(false);
  });
});

describe("a private priority video", () => {
  it("is reachable only through signed URLs; playlists sign every URI they list", async () => {
    const { user, post } = await upload({ "post-privacy": "private" });
    if (!worker) startWorker();
    await until(
      () => fileRow(post.code),
      (f) => f.streamState === "ready",
    );
    const streamUrl: string = (await getPost(post.code, user.apiKey)).files[0].stream_url;
    expect(streamUrl).toMatch(/master\.m3u8\?exp=\d+&sig=[\w-]{43}$/);
    const unsigned = streamUrl.replace(/\?.*$/, "");
    const base = unsigned.replace(/master\.m3u8$/, "");

    expect((await fetchCdn(unsigned)).status).toBe(403);
    expect((await fetchCdn(`${base}720p.m3u8`)).status).toBe(403);
    expect((await fetchCdn(`${base}720p_0000.ts`)).status).toBe(403);
    // One character of the signature changed (to a different one: a signature may start with "A").
    const tampered = streamUrl.replace(/sig=(.)/, (_, c: string) => `sig=${c === "A" ? "B" : "A"}`);
    expect(tampered).not.toBe(streamUrl);
    expect((await fetchCdn(tampered)).status).toBe(403);

    const res = await fetchCdn(streamUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toMatch(/^private, max-age=\d+/);
    const exp = new URL(streamUrl).searchParams.get("exp");
    const variants = (await res.text()).split("\n").filter((l) => l && !l.startsWith("#"));
    expect(variants).toHaveLength(2);
    for (const v of variants) {
      expect(v).toMatch(new RegExp(`^\\d+p\\.m3u8\\?exp=${exp}&sig=`));
      const media = await fetchCdn(base + v);
      expect(media.status).toBe(200);
      const segments = (await media.text()).split("\n").filter((l) => l && !l.startsWith("#"));
      expect(segments.length).toBeGreaterThan(0);
      for (const s of segments) {
        expect(s).toMatch(/\.ts\?exp=\d+&sig=/);
        const seg = await fetchCdn(base + s);
        expect(seg.status).toBe(200);
        await seg.arrayBuffer();
      }
      // A segment signature does not open another segment.
      const [first, second] = segments;
      if (second) {
        const forged = `${base + second.split("?")[0]}?${first.split("?")[1]}`;
        expect((await fetchCdn(forged)).status).toBe(403);
      }
    }
  });
});

describe("standard delivery and fallbacks", () => {
  it("priority: false stores the MP4 only: no job, stream_state null, priority false", async () => {
    const { post } = await upload({ "post-privacy": "public", priority: "false" });
    expect(post.priority).toBe(false);
    expect(post.files[0]).toMatchObject({ stream_url: null, stream_state: null });
    const file = await fileRow(post.code);
    expect(await db().job.count({ where: { key: hlsJobKey(file.id) } })).toBe(0);
  });

  it("no minutes left: the API falls back to standard delivery, Relay refuses with 403 quota_exceeded", async () => {
    const user = await createTestUser({ plan: "free" });
    await db().user.update({ where: { id: user.id }, data: { priorityMinutes: 0 } });
    const { post } = await upload({}, user);
    expect(post.priority).toBe(false);
    expect(post.files[0]).toMatchObject({ stream_url: null, stream_state: null });
    expect(await db().job.count({ where: { key: hlsJobKey((await fileRow(post.code)).id) } })).toBe(0);

    const other = await createTestUser({ plan: "free" });
    await db().user.update({ where: { id: other.id }, data: { priorityMinutes: 0 } });
    const refused = await relay("/upload", {
      method: "POST",
      key: other.relayKey,
      rawBody: await form([{ path: clip, name: "clip.mp4", type: "video/mp4" }]),
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.type).toBe("quota_exceeded");
  });

  it("an album: an image alone is on standard delivery; an appended video puts it on adaptive delivery at once; removing the video takes it off", async () => {
    await stopWorker(); // the appended video's stream stays queued
    const user = await createTestUser({ plan: "free" });
    const first = await api("/upload", {
      method: "POST",
      key: user.apiKey,
      rawBody: await form([{ path: await fixture("pngPlain"), name: "a.png", type: "image/png" }]),
      headers: { "post-privacy": "public" },
    });
    expect(first.status, first.text).toBe(200);
    const code: string = first.body.post.code;
    expect(first.body.post).toMatchObject({ priority: false, files: [{ stream_state: null }] });

    const appended = await api(`/posts/${code}/files`, {
      method: "POST",
      key: user.apiKey,
      rawBody: await form([{ path: clip, name: "clip.mp4", type: "video/mp4" }]),
    });
    expect(appended.status, appended.text).toBe(200);
    expect(appended.body.post.priority).toBe(true);
    expect(appended.body.post.files.map((f: { stream_state: string | null }) => f.stream_state)).toEqual([null, "queued"]);
    expect((await db().post.findUniqueOrThrow({ where: { code } })).priority).toBe(true);

    expect((await api(`/posts/${code}/files/clip.mp4`, { method: "DELETE", key: user.apiKey })).status).toBe(200);
    expect((await getPost(code, user.apiKey)).priority).toBe(false);
    expect((await db().post.findUniqueOrThrow({ where: { code } })).priority).toBe(false);
  });

  it("a job that cannot finish leaves the post on standard delivery, nothing charged", async () => {
    await stopWorker();
    const { user, post } = await upload({ "post-privacy": "public" });
    // The stored MP4 goes bad before the job runs: every attempt would fail the same way.
    const file = await fileRow(post.code);
    await writeFile(join(dataDir(), "files", ...file.storageKey.split("/")), Buffer.from("not a video at all"));
    startWorker();
    await until(
      () => fileRow(post.code),
      (f) => f.streamState === "failed",
    );
    const after = await getPost(post.code, user.apiKey);
    expect(after.priority).toBe(false);
    expect((await db().post.findUniqueOrThrow({ where: { code: post.code } })).priority).toBe(false);
    expect(after.files[0]).toMatchObject({ stream_url: null, stream_state: "failed" });
    expect(await minutesLeft(user.id)).toBeNull();
    expect(existsSync(join(dataDir(), "files", "p", file.postId, `${file.id}.hls`))).toBe(false);
    expect((await fetchCdn(`${after.files[0].url.replace(/\/[^/]+$/, "")}/hls/clip.mp4/master.m3u8`)).status).toBe(404);
  });
});
