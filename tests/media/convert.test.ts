import { execFile } from "node:child_process";
import { copyFile, readFile, stat } from "node:fs/promises";
import { promisify } from "node:util";
import { join } from "node:path";
import sharp from "sharp";
import { describe, expect, it, vi } from "vitest";
import { resetMediaConfig } from "@/lib/media/config";
import { DomainError } from "@/lib/errors";
import {
  canConvert,
  convertFile,
  convertImageBytes,
  convertNeedsPlus,
  IN_MEMORY_PIXELS,
  isConvertTarget,
  type ConvertTarget,
} from "@/lib/media/convert";
import { sniffBuffer, sniffFile } from "@/lib/media/sniff";
import {
  ffmpeg,
  fixture,
  FIXTURE_FFMPEG,
  type FixtureName,
  listDir,
  probeJson,
  removeDir,
  scratchDir,
  SECRET,
  topLevelBoxes,
  useScratchDir,
} from "../support/media";

const out = useScratchDir();

/** Per-packet hashes of every stream: equal means the same media, whatever the container layout. */
async function packets(path: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    FIXTURE_FFMPEG,
    ["-v", "error", "-i", path, "-map", "0", "-c", "copy", "-f", "framemd5", "-"],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout
    .split("\n")
    .filter((l) => l && !l.startsWith("#"))
    .join("\n");
}

async function convert(name: FixtureName, target: ConvertTarget, file = `${name}-to.${target}`) {
  const input = await fixture(name);
  const source = (await sniffFile(input))!;
  const result = await convertFile(input, out(file), { source, target });
  return { result, path: out(file) };
}

describe("matrix", () => {
  it("follows interface.md", () => {
    expect(canConvert("png", "avif")).toBe(true);
    expect(canConvert("jpeg", "gif")).toBe(true);
    expect(canConvert("gif", "mp4")).toBe(true);
    expect(canConvert("png", "mp4")).toBe(false);
    expect(canConvert("gif", "gif")).toBe(false);
    expect(canConvert("gif", "mp3")).toBe(false);
    expect(canConvert("mkv", "mp3")).toBe(true);
    expect(canConvert("mov", "png")).toBe(false);
    expect(convertNeedsPlus("mp4", "gif")).toBe(true);
    expect(convertNeedsPlus("gif", "mp4")).toBe(false);
    expect(isConvertTarget("avif")).toBe(true);
    expect(isConvertTarget("jpg")).toBe(false);
  });

  it("other pairs are unsupported_type", async () => {
    const input = await fixture("png");
    const e = await convertFile(input, out("x.mp4"), { source: (await sniffFile(input))!, target: "mp4" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DomainError);
    expect((e as DomainError).type).toBe("unsupported_type");
  });
});

describe("images", () => {
  it.each([
    ["png", "jpeg", "jpeg"],
    ["png", "webp", "webp"],
    ["png", "avif", "heif"],
    ["png", "gif", "gif"],
    ["png", "png", "png"],
    ["jpegExif", "webp", "webp"],
    ["webp", "png", "png"],
  ] as const)("%s → %s", async (name, target, sharpFormat) => {
    const { result, path } = await convert(name, target);
    const meta = await sharp(path).metadata();
    expect(meta.format).toBe(sharpFormat);
    expect([meta.width, meta.height]).toEqual([64, 48]);
    expect(result).toMatchObject({ width: 64, height: 48 });
    expect(result.size).toBe((await readFile(path)).length);
    expect(meta.exif).toBeUndefined();
    const bytes = await readFile(path);
    expect(bytes.includes(SECRET.make) || bytes.includes(SECRET.comment) || bytes.includes(SECRET.xmp)).toBe(false);
  });

  it("mime and extension of each target", async () => {
    expect((await convert("png", "jpeg", "m.jpg")).result).toMatchObject({ mime: "image/jpeg", ext: "jpg" });
    expect((await convert("png", "avif", "m.avif")).result).toMatchObject({ mime: "image/avif", ext: "avif" });
  });

  it("applies JPEG orientation first (40x20 orientation 6 → 20x40)", async () => {
    const { result, path } = await convert("jpegOriented", "png");
    expect(result).toMatchObject({ width: 20, height: 40, mime: "image/png" });
    const meta = await sharp(path).metadata();
    expect([meta.width, meta.height]).toEqual([20, 40]);
  });

  it("animated GIF → WebP keeps the frames; → PNG/JPEG/AVIF take the first frame", async () => {
    const webp = await convert("gifAnimated", "webp");
    expect(webp.result).toMatchObject({ width: 64, height: 48 });
    const meta = await sharp(webp.path, { animated: true }).metadata();
    expect(meta.pages).toBe(5);
    // GIF is lossless: so is the WebP.
    expect((await readFile(webp.path)).includes("VP8L")).toBe(true);

    for (const target of ["png", "jpeg", "avif"] as const) {
      const { result, path } = await convert("gifAnimated", target);
      expect(result).toMatchObject({ width: 64, height: 48 });
      expect((await sharp(path).metadata()).height).toBe(48); // not a strip of frames
    }
  });

  it("animated WebP → GIF keeps the frames", async () => {
    const { path } = await convert("webpAnimated", "gif");
    expect((await sharp(path, { animated: true }).metadata()).pages).toBe(5);
  });

  it("a corrupt image → invalid_request, no output left", async () => {
    const d = await scratchDir();
    const input = await fixture("corruptPng");
    const e = await convertFile(input, join(d, "o.webp"), { source: (await sniffFile(input))!, target: "webp" }).catch((x: unknown) => x);
    expect((e as DomainError).type).toBe("invalid_request");
    expect(await listDir(d)).toEqual([]);
    await removeDir(d);
  });
});

describe("to MP4", () => {
  it("H.264 source is remuxed with fast-start, metadata stripped", async () => {
    const { result, path } = await convert("mov", "mp4");
    expect(result).toEqual({ mime: "video/mp4", ext: "mp4", size: (await stat(path)).size });
    const boxes = await topLevelBoxes(path);
    expect(boxes.indexOf("moov")).toBeLessThan(boxes.indexOf("mdat"));
    const probe = await probeJson(path);
    expect(probe.streams.map((s) => s.codec_name)).toEqual(["h264", "aac"]);
    expect(probe.streams.map((s) => [s.width, s.height])[0]).toEqual([320, 240]);
    expect(JSON.stringify(probe.format.tags ?? {})).not.toContain(SECRET.title);
  });

  it("an H.264 + AAC MP4 is not remuxed: moov moved in place, metadata zeroed, the same packets, no ffmpeg at all", async () => {
    const input = out("own-upload.mp4");
    await copyFile(await fixture("mp4"), input);
    const source = (await sniffFile(input))!;
    vi.stubEnv("FFMPEG_PATH", "/nonexistent/ffmpeg"); // a remux would fail to start
    resetMediaConfig();
    try {
      const result = await convertFile(input, out("own-upload.out.mp4"), { source, target: "mp4", consumeInput: true });
      expect(result).toEqual({ mime: "video/mp4", ext: "mp4", size: (await stat(out("own-upload.out.mp4"))).size });
    } finally {
      vi.unstubAllEnvs();
      resetMediaConfig();
    }
    const path = out("own-upload.out.mp4");
    await expect(stat(input)).rejects.toThrow(); // consumed: moved, not copied
    const boxes = await topLevelBoxes(path);
    expect(boxes.indexOf("moov")).toBeLessThan(boxes.indexOf("mdat"));
    expect(await packets(path)).toBe(await packets(await fixture("mp4")));
    const bytes = await readFile(path);
    expect(bytes.includes(Buffer.from(SECRET.title))).toBe(false);
    expect(bytes.includes(Buffer.from(SECRET.location))).toBe(false);
    // Not consumed (the caller keeps its file): the input is left as it was.
    const kept = await fixture("mp4");
    const before = await readFile(kept);
    await convertFile(kept, out("kept.mp4"), { source, target: "mp4" });
    expect((await readFile(kept)).equals(before)).toBe(true);
    expect(await packets(out("kept.mp4"))).toBe(await packets(kept));
  });

  it("non-H.264 sources are transcoded, HEVC included (convert copies only H.264)", async () => {
    for (const name of ["mkvHevc", "mkvMpeg2"] as const) {
      const { path } = await convert(name, "mp4");
      expect((await probeJson(path)).streams.map((s) => s.codec_name)).toEqual(["h264", "aac"]);
    }
  });

  it("animated GIF → MP4 (H.264, even size, fast-start)", async () => {
    const { result, path } = await convert("gifAnimated", "mp4");
    expect(result).toMatchObject({ mime: "video/mp4" });
    const probe = await probeJson(path);
    expect(probe.streams.map((s) => s.codec_name)).toEqual(["h264"]);
    expect([probe.streams[0].width, probe.streams[0].height]).toEqual([64, 48]);
    expect(Number(probe.format.duration)).toBeGreaterThan(0.5);
    const boxes = await topLevelBoxes(path);
    expect(boxes.indexOf("moov")).toBeLessThan(boxes.indexOf("mdat"));
  });

  it("a truncated MP4 → invalid_request, no output left", async () => {
    const d = await scratchDir();
    const input = await fixture("truncatedMp4");
    const e = await convertFile(input, join(d, "o.mp4"), { source: (await sniffFile(input))!, target: "mp4" }).catch((x: unknown) => x);
    expect((e as DomainError).type).toBe("invalid_request");
    expect(await listDir(d)).toEqual([]);
    await removeDir(d);
  });
});

describe("video → GIF and MP3", () => {
  it("GIF: 480 px wide, 15 fps, palette; upright for rotated video", async () => {
    const { result, path } = await convert("mp4", "gif");
    expect(result).toMatchObject({ width: 480, height: 360, mime: "image/gif" });
    const meta = await sharp(path, { animated: true }).metadata();
    expect(meta.pages).toBe(30); // 2 s at 15 fps
    expect(meta.delay?.[0]).toBeGreaterThanOrEqual(60);
    expect(meta.delay?.[0]).toBeLessThanOrEqual(70);

    const rotated = await convert("mp4Rotated", "gif");
    expect(rotated.result).toMatchObject({ width: 480, height: 640 });
  });

  it("GIF: only the first 10 seconds", async () => {
    const d = await scratchDir();
    await ffmpeg([
      "-f",
      "lavfi",
      "-i",
      "smptebars=size=160x120:rate=15",
      "-t",
      "13",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
      join(d, "long.mp4"),
    ]);
    const source = (await sniffFile(join(d, "long.mp4")))!;
    await convertFile(join(d, "long.mp4"), join(d, "long.gif"), { source, target: "gif" });
    const meta = await sharp(join(d, "long.gif"), { animated: true }).metadata();
    const total = (meta.delay ?? []).reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(9500);
    expect(total).toBeLessThanOrEqual(10_100);
    await removeDir(d);
  });

  it("MP3: the first audio track, no tags", async () => {
    const { result, path } = await convert("mkv", "mp3");
    expect(result).toMatchObject({ mime: "audio/mpeg", ext: "mp3" });
    const probe = await probeJson(path);
    expect(probe.streams.map((s) => s.codec_name)).toEqual(["mp3"]);
    expect(Number(probe.format.duration)).toBeCloseTo(2, 0);
    expect(JSON.stringify(probe.format.tags ?? {})).not.toContain(SECRET.title);
  });

  it("MP3 from a video without audio → unsupported_type", async () => {
    const e = await convert("mp4Silent", "mp3").catch((x: unknown) => x);
    expect((e as DomainError).type).toBe("unsupported_type");
  });
});

describe("in memory (convertImageBytes)", () => {
  const IMAGE_PAIRS: [FixtureName, ConvertTarget][] = [
    ["png", "png"],
    ["png", "jpeg"],
    ["png", "webp"],
    ["png", "avif"],
    ["png", "gif"],
    ["jpegOriented", "jpeg"],
    ["jpegExif", "webp"],
    ["webp", "png"],
    ["webpAnimated", "gif"],
    ["gifAnimated", "webp"],
    ["gifAnimated", "jpeg"],
  ];

  it.each(IMAGE_PAIRS)("%s → %s: the same bytes and description as convertFile", async (name, target) => {
    const input = await fixture(name);
    const source = (await sniffFile(input))!;
    const fromFile = await convert(name, target);
    const inMemory = await convertImageBytes(await readFile(input), { source, target });
    expect(inMemory).not.toBeNull();
    const { bytes, ...described } = inMemory!;
    expect(bytes.equals(await readFile(fromFile.path))).toBe(true);
    expect(described).toEqual(fromFile.result);
  });

  it("refuses what convertFile refuses: other pairs unsupported_type, a corrupt image invalid_request", async () => {
    const png = await readFile(await fixture("png"));
    const mp4 = await convertImageBytes(png, { source: sniffBuffer(png)!, target: "mp4" }).catch((x: unknown) => x);
    expect((mp4 as DomainError).type).toBe("unsupported_type");
    const corrupt = await readFile(await fixture("corruptPng"));
    const e = await convertImageBytes(corrupt, { source: sniffBuffer(corrupt)!, target: "webp" }).catch((x: unknown) => x);
    expect((e as DomainError).type).toBe("invalid_request");
  });

  it("null over IN_MEMORY_PIXELS of output: all frames count when the target keeps them", async () => {
    // 17 frames of 1024x1024: 17.8 megapixels in all, 1 per frame.
    const path = out("tall.gif");
    await ffmpeg(["-f", "lavfi", "-i", "color=c=red:size=1024x1024:rate=10", "-frames:v", "17", "-f", "gif", path]);
    const bytes = await readFile(path);
    const source = sniffBuffer(bytes)!;
    expect(1024 * 1024 * 17).toBeGreaterThan(IN_MEMORY_PIXELS);
    expect(await convertImageBytes(bytes, { source, target: "webp" })).toBeNull();
    const still = await convertImageBytes(bytes, { source, target: "png" });
    expect([still?.width, still?.height]).toEqual([1024, 1024]);
  });
});
