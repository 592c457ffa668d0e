/**
 * POST /convert on every pair of the conversion matrix (interface.md rule 3) with real
 * media: the reply's magic bytes and decoded dimensions, the attachment headers, metadata
 * stripped, nothing stored and no temporary file left behind.
 */
import sharp from "sharp";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { CONVERT_MATRIX, VIDEO_GIF, type ConvertTarget } from "@/lib/media";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser } from "../support/fixtures";
import { SECRET, type FixtureName } from "../support/media";
import { convertFixture, expectNoTempLeft, magicOf, probeBytes, storedCounts, withEnv, type ConvertReply } from "./helpers";

useTestDatabase();
useCounterStore({ perTest: true });

let plusKey: string;
beforeAll(async () => {
  // Plus: the matrix includes video → GIF (plan rules are in rules.test.ts).
  plusKey = (await createTestUser({ plan: "plus" })).apiKey;
});
afterEach(expectNoTempLeft);

/** One fixture per source type of the matrix, with the size a correct conversion shows. */
const SOURCES = {
  png: { fixture: "png", width: 64, height: 48 },
  // 40x20 with EXIF orientation 6: every output must be the turned 20x40.
  jpeg: { fixture: "jpegOriented", width: 20, height: 40 },
  webp: { fixture: "webp", width: 64, height: 48 },
  // Animated, 5 frames: GIF and WebP targets keep the frames, the others take the first.
  gif: { fixture: "gifAnimated", width: 64, height: 48 },
  mp4: { fixture: "mp4", width: 320, height: 240 },
  mov: { fixture: "mov", width: 320, height: 240 },
  mkv: { fixture: "mkv", width: 320, height: 240 },
} as const satisfies Record<keyof typeof CONVERT_MATRIX, { fixture: FixtureName; width: number; height: number }>;

const MIME: Record<ConvertTarget, string> = {
  png: "image/png",
  jpeg: "image/jpeg",
  webp: "image/webp",
  avif: "image/avif",
  gif: "image/gif",
  mp4: "video/mp4",
  mp3: "audio/mpeg",
};
const EXT: Record<ConvertTarget, string> = { png: "png", jpeg: "jpg", webp: "webp", avif: "avif", gif: "gif", mp4: "mp4", mp3: "mp3" };
// sharp's name for each image format (AVIF is read through libheif).
const SHARP_FORMAT: Partial<Record<ConvertTarget, string>> = { png: "png", jpeg: "jpeg", webp: "webp", avif: "heif", gif: "gif" };

const PAIRS = (Object.keys(CONVERT_MATRIX) as (keyof typeof CONVERT_MATRIX)[]).flatMap((source) =>
  CONVERT_MATRIX[source].map((target) => [source, target] as const),
);

function expectAttachment(reply: ConvertReply, source: keyof typeof SOURCES, target: ConvertTarget): void {
  expect(reply.status, reply.bytes.toString("utf8").slice(0, 300)).toBe(200);
  expect(reply.headers.get("content-type")).toBe(MIME[target]);
  expect(reply.headers.get("content-disposition")).toBe(`attachment; filename="source-${SOURCES[source].fixture}.${EXT[target]}"`);
  expect(Number(reply.headers.get("content-length"))).toBe(reply.bytes.length);
  expect(reply.headers.get("x-content-type-options")).toBe("nosniff");
  expect(reply.headers.get("request-id")).toBeTruthy();
  // The rate-limit headers of the dispatcher are on the success reply too.
  expect(reply.headers.get("x-ratelimit-limit")).toBe("10");
}

/** None of the planted metadata survives (EXIF Make, PNG/GIF comments, XMP, video tags). */
function expectNoSecrets(bytes: Buffer): void {
  for (const secret of Object.values(SECRET)) expect(bytes.includes(secret), secret).toBe(false);
}

/**
 * A small image to an image target is converted in memory (the default, as clients send a
 * Content-Length); with CONVERT_IN_MEMORY_MAX_BYTES=0 everything goes through temporary
 * files. Both ways must give the same answers, so the matrix runs on each.
 */
const WAYS = [
  ["in memory where it can", {}],
  ["through temporary files", { CONVERT_IN_MEMORY_MAX_BYTES: "0" }],
] as const satisfies readonly (readonly [string, Record<string, string>])[];

describe.each(WAYS)("every matrix pair, %s", (_way, env) => {
  it("covers the 29 pairs of interface.md", () => {
    expect(PAIRS).toHaveLength(29);
  });

  it.each(PAIRS)("%s → %s", async (source, target) => {
    const before = await storedCounts();
    const reply = await withEnv(env, () => convertFixture(plusKey, SOURCES[source].fixture, target));
    expectAttachment(reply, source, target);
    expect(magicOf(reply.bytes)).toBe(target);
    expectNoSecrets(reply.bytes);

    const { width, height } = SOURCES[source];
    const isVideoSource = source === "mp4" || source === "mov" || source === "mkv";
    if (target === "mp3") {
      const probe = await probeBytes(reply.bytes, "mp3");
      expect(probe.streams.map((s) => s.codec_name)).toEqual(["mp3"]);
      expect(Number(probe.format.duration)).toBeCloseTo(2, 0);
      expect(probe.format.tags ?? {}).toEqual({});
    } else if (target === "mp4") {
      const probe = await probeBytes(reply.bytes, "mp4");
      const video = probe.streams.find((s) => s.codec_type === "video")!;
      expect(video.codec_name).toBe("h264");
      expect([video.width, video.height]).toEqual([width, height]);
      expect(probe.format.tags?.title).toBeUndefined();
      expect(probe.format.tags?.location).toBeUndefined();
    } else if (target === "gif" && isVideoSource) {
      // Video → GIF: 480 px wide, aspect kept, animated.
      const meta = await sharp(reply.bytes, { animated: true }).metadata();
      expect(meta.format).toBe("gif");
      expect(meta.width).toBe(VIDEO_GIF.width);
      expect(meta.pageHeight).toBe(Math.round((VIDEO_GIF.width * height) / width));
      expect(meta.pages).toBeGreaterThan(1);
    } else {
      const meta = await sharp(reply.bytes, { animated: true }).metadata();
      expect(meta.format).toBe(SHARP_FORMAT[target]);
      expect([meta.width, meta.pageHeight ?? meta.height]).toEqual([width, height]);
      expect(meta.exif).toBeUndefined();
      expect(meta.xmp).toBeUndefined();
      expect(meta.orientation ?? 1).toBe(1);
      // An animated GIF keeps its frames as GIF or WebP only; stills stay stills.
      const animatedOut = source === "gif" && (target === "webp" || target === "gif");
      expect(meta.pages ?? 1).toBe(animatedOut ? 5 : 1);
    }
    expect(await storedCounts()).toEqual(before);
  });
});

describe("details", () => {
  it("applies the JPEG orientation to the pixels: left red half ends on top", async () => {
    const reply = await convertFixture(plusKey, "jpegOriented", "png");
    const { data, info } = await sharp(reply.bytes).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([20, 40]);
    const px = (x: number, y: number) =>
      Array.from(data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3));
    // Orientation 6 turns the image 90° clockwise: the left (red) half becomes the top.
    expect(px(10, 5)[0]).toBeGreaterThan(200);
    expect(px(10, 5)[2]).toBeLessThan(60);
    expect(px(10, 35)[2]).toBeGreaterThan(200);
    expect(px(10, 35)[0]).toBeLessThan(60);
  });

  it("an animated WebP stays animated as GIF; PNG gets its first frame", async () => {
    const gif = await convertFixture(plusKey, "webpAnimated", "gif");
    const meta = await sharp(gif.bytes, { animated: true }).metadata();
    expect([meta.format, meta.pages, meta.width, meta.pageHeight]).toEqual(["gif", 5, 64, 48]);
    const png = await sharp((await convertFixture(plusKey, "webpAnimated", "png")).bytes, { animated: true }).metadata();
    expect([png.format, png.pages ?? 1, png.width, png.height]).toEqual(["png", 1, 64, 48]);
  });

  it("MP4 output from H.264 is remuxed with fast-start (moov before mdat)", async () => {
    const reply = await convertFixture(plusKey, "mkv", "mp4");
    const at = (box: string) => reply.bytes.indexOf(Buffer.from(box, "latin1"));
    expect(at("moov")).toBeGreaterThan(0);
    expect(at("moov")).toBeLessThan(at("mdat"));
  });

  it("MP4 output from a non-H.264 source is transcoded to H.264", async () => {
    const reply = await convertFixture(plusKey, "mkvMpeg2", "mp4");
    expect(reply.status).toBe(200);
    const probe = await probeBytes(reply.bytes, "mp4");
    expect(probe.streams.find((s) => s.codec_type === "video")?.codec_name).toBe("h264");
  });

  it("a static GIF becomes an MP4 too", async () => {
    const reply = await convertFixture(plusKey, "gif", "mp4");
    expect(magicOf(reply.bytes)).toBe("mp4");
    const video = (await probeBytes(reply.bytes, "mp4")).streams.find((s) => s.codec_type === "video")!;
    expect([video.width, video.height]).toEqual([32, 32]);
  });

  it("the source type comes from the bytes: a PNG named photo.mp4 converts as a PNG", async () => {
    const reply = await convertFixture(plusKey, "png", "webp", "photo.mp4");
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-disposition")).toBe('attachment; filename="photo.webp"');
  });
});
