/**
 * POST /convert leaves nothing behind when the client goes away: during the upload, while
 * the job waits for a media slot, while ffmpeg runs, before the reply is read and half-way
 * through it. "Nothing" includes a deleted file still held open by a descriptor. A small
 * image conversion makes no file in the first place.
 */
import { randomBytes } from "node:crypto";
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import sharp from "sharp";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { dataDir } from "@/lib/db/config";
import { resetMediaConfig } from "@/lib/media/config";
import { mediaLimiter, resetMediaLimiter, withMediaSlot } from "@/lib/media/limiter";
import { dispatcher } from "@/lib/routes";
import { READ_CHUNK_BYTES } from "@/lib/convert/file-stream";
import { IN_MEMORY_PIXELS } from "@/lib/media/convert";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser, type TestUser } from "../support/fixtures";
import { ffmpeg, fixture, scratchDir } from "../support/media";
import { form } from "../support/multipart";
import { convertRequest, expectNoTempLeft, magicOf, openTempDescriptors, postConvert, tempEntries, withEnv } from "./helpers";

useTestDatabase();
useCounterStore({ perTest: true });

let user: TestUser;
let noisePng: string;
beforeAll(async () => {
  user = await createTestUser({ plan: "ultra" });
  // Random pixels do not compress: a ~4 MB PNG, so the reply takes many reads.
  const width = 1200;
  const height = 1200;
  noisePng = join(await scratchDir(), "noise.png");
  await sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toFile(noisePng);
});
afterEach(expectNoTempLeft);

/** Resolves once `check` holds (polling), or fails after `ms`. */
async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Runs `fn` with one media slot and no queue, the slot held by the test until it releases it. */
async function withBusyMedia(fn: (release: () => Promise<void>) => Promise<void>): Promise<void> {
  const saved = { c: process.env.MEDIA_CONCURRENCY, q: process.env.MEDIA_QUEUE_MAX };
  process.env.MEDIA_CONCURRENCY = "1";
  process.env.MEDIA_QUEUE_MAX = "1";
  resetMediaConfig();
  resetMediaLimiter();
  let open!: () => void;
  const held = withMediaSlot(() => new Promise<void>((done) => (open = done)));
  const release = async () => {
    open();
    await held;
  };
  try {
    await fn(release);
  } finally {
    await release();
    if (saved.c === undefined) delete process.env.MEDIA_CONCURRENCY;
    else process.env.MEDIA_CONCURRENCY = saved.c;
    if (saved.q === undefined) delete process.env.MEDIA_QUEUE_MAX;
    else process.env.MEDIA_QUEUE_MAX = saved.q;
    resetMediaConfig();
    resetMediaLimiter();
  }
}

describe("the reply streams from a file that is already deleted", () => {
  it("while the body is unread the directory is gone and one descriptor holds the bytes", async () => {
    const response = await dispatcher("api")(convertRequest({ key: user.apiKey, target: "png", body: await form([{ path: noisePng }]) }));
    expect(response.status).toBe(200);
    expect(await tempEntries()).toEqual([]);
    expect(await openTempDescriptors()).toHaveLength(1);
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.length).toBe(Number(response.headers.get("content-length")));
    expect(body.length).toBeGreaterThan(4 * READ_CHUNK_BYTES);
    expect(body.equals(await readFile(noisePng))).toBe(true); // a PNG with nothing to strip is copied as is
  });

  it("client stops reading half-way (the stream is cancelled): the descriptor is closed", async () => {
    const response = await dispatcher("api")(convertRequest({ key: user.apiKey, target: "png", body: await form([{ path: noisePng }]) }));
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.value?.length).toBe(READ_CHUNK_BYTES);
    await reader.cancel();
  });

  it("client disconnects before reading anything (request signal aborts): the descriptor is closed", async () => {
    const controller = new AbortController();
    const response = await dispatcher("api")(
      convertRequest({ key: user.apiKey, target: "png", body: await form([{ path: noisePng }]), signal: controller.signal }),
    );
    expect(response.status).toBe(200);
    controller.abort();
    await until(async () => (await openTempDescriptors()).length === 0);
  });
});

describe("client aborts before the reply", () => {
  it("during the upload: 400, the partial file is removed", async () => {
    // The multipart bytes a client would send, then cut off half-way with a network error.
    const encoded = new Response(await form([{ path: await fixture("mp4") }]));
    const full = Buffer.from(await encoded.arrayBuffer());
    expect(full.length).toBeGreaterThan(16_384);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= full.length / 2) return controller.error(new Error("connection reset by peer"));
        const chunk = full.subarray(sent, sent + 8192);
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const headers = { "content-type": encoded.headers.get("content-type")! };
    const response = await dispatcher("api")(convertRequest({ key: user.apiKey, target: "mp4", body, headers }));
    expect(response.status).toBe(400);
    expect((await response.json()).error.type).toBe("invalid_request");
  });

  it("while waiting for a media slot: the job leaves the queue and its files are removed", async () => {
    await withBusyMedia(async () => {
      const controller = new AbortController();
      const reply = dispatcher("api")(
        convertRequest({ key: user.apiKey, target: "webp", body: await form([{ path: await fixture("png") }]), signal: controller.signal }),
      );
      await until(() => mediaLimiter().stats().waiting === 1);
      // Only the first file was written while it waits: the upload is in, the output not yet.
      const [dir] = await tempEntries();
      expect(await readdir(join(dataDir(), "tmp", dir))).toEqual(["part-0"]);
      controller.abort();
      const response = await reply;
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(mediaLimiter().stats().waiting).toBe(0);
    });
  });

  it("while ffmpeg runs: it is stopped and the files are removed", async () => {
    // A 12 s 640x360 clip: its 10 s GIF takes long enough (about a second) to abort in the middle.
    const long = join(await scratchDir(), "long.mp4");
    await ffmpeg([
      "-f",
      "lavfi",
      "-i",
      "testsrc=size=640x360:rate=30",
      "-t",
      "12",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
      long,
    ]);
    const controller = new AbortController();
    const reply = dispatcher("api")(
      convertRequest({ key: user.apiKey, target: "gif", body: await form([{ path: long }]), signal: controller.signal }),
    );
    await until(() => mediaLimiter().stats().active === 1);
    await new Promise((r) => setTimeout(r, 150));
    const abortedAt = Date.now();
    controller.abort();
    const response = await reply;
    // Answered at once (ffmpeg killed), not after the GIF was finished.
    expect(Date.now() - abortedAt).toBeLessThan(3_000);
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toMatch(/closed the connection/);
    expect(mediaLimiter().stats().active).toBe(0);
  });
});

describe("small image conversions make no temporary file at all", () => {
  /** DATA_DIR/tmp replaced by a plain file: making any temporary directory fails (ENOTDIR → 500). */
  async function withoutTempDir(fn: () => Promise<void>): Promise<void> {
    const root = join(dataDir(), "tmp");
    await rm(root, { recursive: true, force: true });
    await writeFile(root, "not a directory");
    try {
      await fn();
    } finally {
      await rm(root, { force: true });
    }
  }

  it("an image with its Content-Length converts without one; the same request without a length needs one", async () => {
    await withoutTempDir(async () => {
      const reply = await postConvert({ key: user.apiKey, target: "webp", body: await form([{ path: await fixture("jpegOriented") }]) });
      expect(reply.status).toBe(200);
      expect(magicOf(reply.bytes)).toBe("webp");
      // Chunked (no Content-Length): received to a file, so here it fails.
      const chunked = await dispatcher("api")(
        convertRequest({ key: user.apiKey, target: "webp", body: await form([{ path: await fixture("jpegOriented") }]) }),
      );
      expect(chunked.status).toBe(500);
    });
  });

  it("a small video, or an image of more than IN_MEMORY_PIXELS, goes through a file", async () => {
    const large = join(await scratchDir(), "large.png");
    const side = Math.floor(Math.sqrt(IN_MEMORY_PIXELS)) + 1; // 4097 x 4097, one flat colour: a small file
    await sharp({ create: { width: side, height: side, channels: 3, background: "#3366cc" } })
      .png()
      .toFile(large);
    await withoutTempDir(async () => {
      expect((await postConvert({ key: user.apiKey, target: "gif", body: await form([{ path: await fixture("mp4") }]) })).status).toBe(500);
      expect((await postConvert({ key: user.apiKey, target: "jpeg", body: await form([{ path: large }]) })).status).toBe(500);
    });
    const reply = await postConvert({ key: user.apiKey, target: "jpeg", body: await form([{ path: large }]) });
    expect(reply.status).toBe(200);
    const meta = await sharp(reply.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", side, side]);
  });

  it("CONVERT_IN_MEMORY_MAX_BYTES bounds the requests received in memory (0: none)", async () => {
    const body = await form([{ path: await fixture("png") }]);
    const length = (await new Response(body).arrayBuffer()).byteLength;
    await withoutTempDir(async () => {
      for (const [limit, status] of [
        [length, 200],
        [length - 1, 500],
        [0, 500],
      ] as const) {
        const reply = await withEnv({ CONVERT_IN_MEMORY_MAX_BYTES: String(limit) }, () =>
          postConvert({ key: user.apiKey, target: "webp", body }),
        );
        expect(reply.status, `limit ${limit}`).toBe(status);
      }
    });
  });
});
