import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { DomainError } from "@/lib/errors";
import { processImage } from "@/lib/media/image";
import { rewriteImage } from "@/lib/media/image-container";
import { ffmpeg, fixture, listDir, removeDir, scratchDir, SECRET, useScratchDir } from "../support/media";

const out = useScratchDir();
const has = (buf: Buffer, text: string) => buf.includes(Buffer.from(text, "latin1"));
/** GPSLatitudeRef from raw EXIF (via the GPS IFD pointer in IFD0), or undefined. */
function gpsLatitude(exif: Buffer): string | undefined {
  const tiff = exif.subarray(exif.indexOf("Exif\0\0") >= 0 ? exif.indexOf("Exif\0\0") + 6 : 0);
  const le = tiff.toString("latin1", 0, 2) === "II";
  const u16 = (at: number) => (le ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (le ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const entries = (ifd: number) => Array.from({ length: u16(ifd) }, (_, i) => ifd + 2 + i * 12);
  const gpsEntry = entries(u32(4)).find((e) => u16(e) === 0x8825);
  if (gpsEntry === undefined) return undefined;
  const ref = entries(u32(gpsEntry + 8)).find((e) => u16(e) === 0x0001);
  return ref === undefined ? undefined : tiff.toString("latin1", ref + 8, ref + 9);
}

/** Decoded RGBA pixels, to compare images exactly. */
const pixels = (path: string, animated = false) => sharp(path, { animated }).ensureAlpha().raw().toBuffer();

describe("processImage: orientation", () => {
  it("turns a 40x20 JPEG with orientation 6 into 20x40 pixels, with no EXIF or GPS left", async () => {
    const input = await fixture("jpegOriented");
    const before = await sharp(input).metadata();
    expect([before.width, before.height, before.orientation]).toEqual([40, 20, 6]);
    expect(gpsLatitude(before.exif!)).toBe("N");

    const result = await processImage(input, out("oriented.jpg"), { keepMetadata: false, format: "jpeg" });
    expect(result).toMatchObject({ width: 20, height: 40, mime: "image/jpeg", ext: "jpg", animated: false });

    const meta = await sharp(out("oriented.jpg")).metadata();
    expect([meta.width, meta.height]).toEqual([20, 40]);
    expect(meta.orientation).toBeUndefined();
    expect(meta.exif).toBeUndefined();
    const bytes = await readFile(out("oriented.jpg"));
    expect(result.size).toBe(bytes.length);
    expect(has(bytes, SECRET.make) || has(bytes, "Exif\0")).toBe(false);
    // Turned clockwise: the red left half of the stored picture is now on top.
    const { data } = await sharp(out("oriented.jpg")).raw().toBuffer({ resolveWithObject: true });
    const top = [data[0]!, data[1]!, data[2]!];
    const bottom = data.subarray(data.length - 3);
    expect(top[0]).toBeGreaterThan(200);
    expect(top[2]).toBeLessThan(60);
    expect(bottom[2]).toBeGreaterThan(200);
    expect(bottom[0]).toBeLessThan(60);
  });

  it("with keepMetadata keeps EXIF and GPS but resets the orientation to 1", async () => {
    const result = await processImage(await fixture("jpegOriented"), out("oriented-keep.jpg"), { keepMetadata: true, format: "jpeg" });
    expect([result.width, result.height]).toEqual([20, 40]);
    const meta = await sharp(out("oriented-keep.jpg")).metadata();
    expect([meta.width, meta.height]).toEqual([20, 40]);
    expect(meta.orientation).toBe(1); // viewers must not turn it a second time
    expect(meta.exif && has(meta.exif, SECRET.make)).toBe(true);
    expect(gpsLatitude(meta.exif!)).toBe("N");
  });
});

describe("processImage: metadata stripping without re-encoding", () => {
  it("JPEG: drops EXIF, XMP and comments; the compressed pixels are untouched", async () => {
    const input = await fixture("jpegExif");
    const src = await readFile(input);
    expect(has(src, SECRET.make) && has(src, SECRET.xmp) && has(src, SECRET.comment)).toBe(true);

    const result = await processImage(input, out("stripped.jpg"), { keepMetadata: false, format: "jpeg" });
    const bytes = await readFile(out("stripped.jpg"));
    expect(result).toMatchObject({ width: 64, height: 48, size: bytes.length, mime: "image/jpeg" });
    for (const secret of [SECRET.make, SECRET.xmp, SECRET.comment, "Exif\0", "http://ns.adobe.com/xap"])
      expect(has(bytes, secret)).toBe(false);
    const meta = await sharp(bytes).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(bytes.length).toBeLessThan(src.length);
    expect((await pixels(out("stripped.jpg"))).equals(await pixels(input))).toBe(true);
  });

  it("JPEG with keepMetadata and nothing to rotate: bytes unchanged", async () => {
    const input = await fixture("jpegExif");
    await processImage(input, out("kept.jpg"), { keepMetadata: true, format: "jpeg" });
    expect((await readFile(out("kept.jpg"))).equals(await readFile(input))).toBe(true);
  });

  it("PNG: drops text and time chunks, keeps the pixels", async () => {
    const input = await fixture("png");
    const result = await processImage(input, out("stripped.png"), { keepMetadata: false, format: "png" });
    const bytes = await readFile(out("stripped.png"));
    expect(result).toMatchObject({ width: 64, height: 48, mime: "image/png", ext: "png", animated: false });
    expect(has(bytes, SECRET.comment) || has(bytes, "tEXt") || has(bytes, "tIME")).toBe(false);
    expect((await pixels(out("stripped.png"))).equals(await pixels(input))).toBe(true);
  });

  it("PNG without metadata: copied byte for byte", async () => {
    const input = await fixture("pngPlain");
    await processImage(input, out("plain.png"), { keepMetadata: false, format: "png" });
    expect((await readFile(out("plain.png"))).equals(await readFile(input))).toBe(true);
  });

  it("WebP: drops EXIF and fixes the header; lossless WebP stays as it is", async () => {
    const input = await fixture("webp");
    expect((await sharp(input).metadata()).exif).toBeDefined();
    const result = await processImage(input, out("stripped.webp"), { keepMetadata: false, format: "webp" });
    const bytes = await readFile(out("stripped.webp"));
    expect(result).toMatchObject({ width: 64, height: 48, mime: "image/webp", size: bytes.length });
    expect(has(bytes, SECRET.make) || has(bytes, "EXIF")).toBe(false);
    expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8);
    expect((await sharp(bytes).metadata()).exif).toBeUndefined();
    expect((await pixels(out("stripped.webp"))).equals(await pixels(input))).toBe(true);

    const lossless = await fixture("webpLossless");
    await processImage(lossless, out("lossless.webp"), { keepMetadata: false, format: "webp" });
    expect((await readFile(out("lossless.webp"))).equals(await readFile(lossless))).toBe(true);
  });

  it("keeps an ICC profile (colour), drops the rest", async () => {
    const p3 = out("p3-src.jpg");
    await sharp({ create: { width: 16, height: 16, channels: 3, background: "#ff0000" } })
      .withIccProfile("p3")
      .withExif({ IFD0: { Make: SECRET.make } })
      .jpeg()
      .toFile(p3);
    await processImage(p3, out("p3.jpg"), { keepMetadata: false, format: "jpeg" });
    const meta = await sharp(out("p3.jpg")).metadata();
    expect(meta.hasProfile).toBe(true);
    expect(meta.exif).toBeUndefined();
  });

  it("drops bytes appended after the image end even with keepMetadata", async () => {
    const input = out("trailing-src.png");
    const src = await readFile(await fixture("pngPlain"));
    await writeFile(input, Buffer.concat([src, Buffer.from("PK\x03\x04 hidden zip payload")]));
    await processImage(input, out("trailing.png"), { keepMetadata: true, format: "png" });
    expect((await readFile(out("trailing.png"))).equals(src)).toBe(true);
  });
});

describe("processImage: animation", () => {
  it("animated GIF keeps its frames, reports the frame height and loses its comment", async () => {
    const input = await fixture("gifAnimated");
    const result = await processImage(input, out("anim.gif"), { keepMetadata: false, format: "gif" });
    expect(result).toMatchObject({ width: 64, height: 48, mime: "image/gif", ext: "gif", animated: true });
    const meta = await sharp(out("anim.gif"), { animated: true }).metadata();
    expect(meta.pages).toBe(5);
    expect(meta.pageHeight).toBe(48);
    expect(has(await readFile(out("anim.gif")), SECRET.comment)).toBe(false);
    expect((await pixels(out("anim.gif"), true)).equals(await pixels(input, true))).toBe(true);
  });

  it("animated WebP keeps its frames", async () => {
    const result = await processImage(await fixture("webpAnimated"), out("anim.webp"), { keepMetadata: false, format: "webp" });
    expect(result).toMatchObject({ width: 64, height: 48, animated: true, mime: "image/webp" });
    expect((await sharp(out("anim.webp"), { animated: true }).metadata()).pages).toBe(5);
  });

  it("a long animation is fine: the pixel limit is per frame, plus a larger one for all frames", async () => {
    const d = await scratchDir();
    // 900 frames of 640x480 = 276 MP in all, above the 268 MP still-image limit.
    await ffmpeg([
      "-f",
      "lavfi",
      "-i",
      "color=c=red:size=640x480:rate=30",
      "-t",
      "30",
      "-pix_fmt",
      "rgb8",
      "-f",
      "gif",
      join(d, "long.gif"),
    ]);
    const result = await processImage(join(d, "long.gif"), join(d, "out.gif"), { keepMetadata: false, format: "gif" });
    expect(result).toMatchObject({ width: 640, height: 480, animated: true });
    await removeDir(d);
  });

  it("a static GIF is not animated", async () => {
    const result = await processImage(await fixture("gif"), out("static.gif"), { keepMetadata: false, format: "gif" });
    expect(result).toMatchObject({ width: 32, height: 32, animated: false });
    expect(has(await readFile(out("static.gif")), SECRET.comment)).toBe(false);
  });

  it("with keepMetadata the GIF comment stays", async () => {
    await processImage(await fixture("gif"), out("static-keep.gif"), { keepMetadata: true, format: "gif" });
    expect(has(await readFile(out("static-keep.gif")), SECRET.comment)).toBe(true);
  });
});

describe("processImage: bad input", () => {
  const invalid = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).type).toBe("invalid_request");
    return error as DomainError;
  };

  it("a PNG header followed by garbage → invalid_request, no output left", async () => {
    const d = await scratchDir();
    await invalid(processImage(await fixture("corruptPng"), join(d, "x.png"), { keepMetadata: false, format: "png" }));
    expect(await listDir(d)).toEqual([]);
    await removeDir(d);
  });

  it("a well-formed PNG whose compressed pixels are damaged → invalid_request (the fast path decodes too)", async () => {
    const d = await scratchDir();
    const png = Buffer.from(await readFile(await fixture("pngPlain")));
    const idat = png.indexOf("IDAT") - 4;
    const len = png.readUInt32BE(idat);
    for (let i = idat + 8 + 4; i < idat + 8 + len - 4; i += 3) png[i] = png[i]! ^ 0xa5;
    png.writeUInt32BE(crc32(png.subarray(idat + 4, idat + 8 + len)) >>> 0, idat + 8 + len); // valid chunk CRC
    await writeFile(join(d, "in.png"), png);
    await invalid(processImage(join(d, "in.png"), join(d, "out.png"), { keepMetadata: false, format: "png" }));
    expect(await listDir(d)).toEqual(["in.png"]);
    await removeDir(d);
  });

  it("a truncated JPEG → invalid_request", async () => {
    const d = await scratchDir();
    const big = await sharp({
      create: { width: 300, height: 200, channels: 3, background: "#000", noise: { type: "gaussian", mean: 128, sigma: 40 } },
    })
      .jpeg()
      .toBuffer();
    await writeFile(join(d, "in.jpg"), big.subarray(0, big.length >> 1));
    await invalid(processImage(join(d, "in.jpg"), join(d, "out.jpg"), { keepMetadata: false, format: "jpeg" }));
    expect(await listDir(d)).toEqual(["in.jpg"]);
    await removeDir(d);
  });

  it("a decompression bomb (900 MP header) → invalid_request, quickly", async () => {
    const started = Date.now();
    const e = await invalid(processImage(await fixture("bombPng"), out("bomb.png"), { keepMetadata: false, format: "png" }));
    expect(e.message).toMatch(/pixels/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("text with a .png name → invalid_request", async () => {
    await invalid(processImage(await fixture("textPng"), out("text.png"), { keepMetadata: false, format: "png" }));
  });

  it("a file that is not the claimed format → invalid_request", async () => {
    await invalid(processImage(await fixture("pngPlain"), out("mismatch.jpg"), { keepMetadata: false, format: "jpeg" }));
  });

  it("a video format → unsupported_type", async () => {
    const e = await processImage(await fixture("mp4"), out("video.mp4"), { keepMetadata: false, format: "mp4" }).catch((x: unknown) => x);
    expect((e as DomainError).type).toBe("unsupported_type");
  });
});

describe("rewriteImage (container surgery)", () => {
  it("returns null for truncated containers so the caller re-encodes or rejects", async () => {
    for (const [name, format] of [
      ["pngPlain", "png"],
      ["jpegExif", "jpeg"],
      ["webp", "webp"],
      ["gifAnimated", "gif"],
    ] as const) {
      const buf = await readFile(await fixture(name));
      expect(rewriteImage(buf.subarray(0, buf.length - 10), format, false)).toBeNull();
      expect(rewriteImage(buf, format, false)).not.toBeNull();
    }
  });

  it("adds a missing GIF trailer instead of re-encoding", async () => {
    const gif = await readFile(await fixture("gifAnimated"));
    const noTrailer = gif.subarray(0, gif.length - 1);
    const fixed = rewriteImage(noTrailer, "gif", true)!;
    expect(fixed.changed).toBe(true);
    expect(fixed.bytes.equals(gif)).toBe(true);
    await writeFile(out("no-trailer.gif"), noTrailer);
    const result = await processImage(out("no-trailer.gif"), out("trailer.gif"), { keepMetadata: false, format: "gif" });
    expect(result).toMatchObject({ animated: true, height: 48 });
  });

  it("walks progressive JPEGs (several scans, tables between them)", async () => {
    const src = await sharp({
      create: { width: 120, height: 90, channels: 3, background: "#000", noise: { type: "gaussian", mean: 120, sigma: 50 } },
    })
      .jpeg({ progressive: true, quality: 80 })
      .withExif({ IFD0: { Make: SECRET.make } })
      .toBuffer();
    expect(src.indexOf(Buffer.from([0xff, 0xda]), src.indexOf(Buffer.from([0xff, 0xda])) + 2)).toBeGreaterThan(0); // 2+ scans
    const rewritten = rewriteImage(src, "jpeg", false)!;
    expect(rewritten.strippedMetadata).toBe(true);
    expect(has(rewritten.bytes, SECRET.make)).toBe(false);
    const decode = (b: Buffer) => sharp(b).raw().toBuffer();
    expect((await decode(rewritten.bytes)).equals(await decode(src))).toBe(true);
  });
});
