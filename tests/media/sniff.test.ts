import { describe, expect, it } from "vitest";
import { sniffBuffer, sniffFile, type Sniffed } from "@/lib/media/sniff";
import { fixture, type FixtureName } from "../support/media";

const expected: Array<[FixtureName, Sniffed | null]> = [
  ["png", { kind: "image", format: "png", mime: "image/png", ext: "png" }],
  ["jpegOriented", { kind: "image", format: "jpeg", mime: "image/jpeg", ext: "jpg" }],
  ["webp", { kind: "image", format: "webp", mime: "image/webp", ext: "webp" }],
  ["webpLossless", { kind: "image", format: "webp", mime: "image/webp", ext: "webp" }],
  ["webpAnimated", { kind: "image", format: "webp", mime: "image/webp", ext: "webp" }],
  ["gif", { kind: "image", format: "gif", mime: "image/gif", ext: "gif" }],
  ["gifAnimated", { kind: "image", format: "gif", mime: "image/gif", ext: "gif" }],
  ["mp4", { kind: "video", format: "mp4", mime: "video/mp4", ext: "mp4" }],
  ["mov", { kind: "video", format: "mov", mime: "video/quicktime", ext: "mov" }],
  ["mkv", { kind: "video", format: "mkv", mime: "video/x-matroska", ext: "mkv" }],
  ["mkvMpeg2", { kind: "video", format: "mkv", mime: "video/x-matroska", ext: "mkv" }],
  // Type detection reads only the start: damage further in is found by processing.
  ["corruptPng", { kind: "image", format: "png", mime: "image/png", ext: "png" }],
  ["truncatedMp4", { kind: "video", format: "mp4", mime: "video/mp4", ext: "mp4" }],
  ["webm", { kind: "video", format: "webm", mime: "video/webm", ext: "webm" }],
  ["webmVp9Opus", { kind: "video", format: "webm", mime: "video/webm", ext: "webm" }],
  ["webmH264", { kind: "video", format: "webm", mime: "video/webm", ext: "webm" }],
  ["textPng", null],
];

describe("sniffFile", () => {
  it.each(expected)("%s", async (name, want) => {
    expect(await sniffFile(await fixture(name))).toEqual(want);
  });
});

/** An ISO-BMFF file start: ftyp box with a major brand and compatible brands. */
function ftyp(major: string, ...compatible: string[]): Buffer {
  const size = 16 + 4 * compatible.length;
  const b = Buffer.alloc(size + 8);
  b.writeUInt32BE(size, 0);
  b.write("ftyp", 4, "latin1");
  b.write(major, 8, "latin1");
  compatible.forEach((c, i) => b.write(c, 16 + 4 * i, "latin1"));
  b.writeUInt32BE(8, size); // an empty free box after it
  b.write("free", size + 4, "latin1");
  return b;
}

/** An EBML header with the given DocType. */
function ebml(docType: string): Buffer {
  const doc = Buffer.from(docType, "latin1");
  const body = Buffer.concat([Buffer.from([0x42, 0x86, 0x81, 0x01]), Buffer.from([0x42, 0x82, 0x80 | doc.length]), doc]);
  return Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x80 | body.length]), body, Buffer.alloc(16)]);
}

describe("sniffBuffer", () => {
  it.each([
    ["isom", ["isom", "iso2", "avc1", "mp41"], "mp4"],
    ["mp42", ["mp42", "isom"], "mp4"],
    ["M4V ", ["M4V ", "M4A ", "mp42", "isom"], "mp4"],
    ["3gp5", ["3gp5", "isom"], "mp4"],
    ["qt  ", ["qt  "], "mov"],
    ["XXXX", ["qt  "], "mov"], // unknown major brand: decided by the compatible ones
    ["XXXX", ["isom", "dash"], "mp4"],
  ])("ftyp major %s compatible %j → %s", (major, compatible, format) => {
    expect(sniffBuffer(ftyp(major, ...compatible))?.format).toBe(format);
  });

  it.each([
    ["heic", ["mif1", "heic"]],
    ["mif1", ["mif1", "heic"]],
    ["avif", ["avif", "mif1", "miaf"]],
    ["M4A ", ["M4A ", "mp42", "isom"]], // audio-only
    ["XXXX", ["mif1", "isom"]],
    ["XXXX", ["YYYY"]],
  ])("ftyp major %s compatible %j → null", (major, compatible) => {
    expect(sniffBuffer(ftyp(major, ...compatible))).toBeNull();
  });

  it("reads the Matroska DocType: matroska → mkv, webm → webm (issue 26 §1)", () => {
    expect(sniffBuffer(ebml("matroska"))?.format).toBe("mkv");
    expect(sniffBuffer(ebml("webm"))?.format).toBe("webm");
    expect(sniffBuffer(ebml("other"))).toBeNull();
  });

  it("accepts QuickTime files from before ftyp (wide/free atoms, then mdat or moov)", () => {
    const atoms = Buffer.alloc(32);
    atoms.writeUInt32BE(8, 0);
    atoms.write("wide", 4, "latin1");
    atoms.writeUInt32BE(24, 8);
    atoms.write("mdat", 12, "latin1");
    expect(sniffBuffer(atoms)?.format).toBe("mov");
  });

  it("refuses text, empty input, SVG, BMP, TIFF, PDF and a RIFF that is not WebP", () => {
    for (const text of [
      "",
      "hello world",
      "<svg xmlns='http://www.w3.org/2000/svg'/>",
      "%PDF-1.7\n",
      "BM\x36\x00\x00\x00",
      "II*\x00",
      "RIFF\x24\x00\x00\x00WAVEfmt ",
    ]) {
      expect(sniffBuffer(Buffer.from(text, "latin1"))).toBeNull();
    }
  });

  it("needs only the magic bytes for images", () => {
    expect(sniffBuffer(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))?.format).toBe("jpeg");
    expect(sniffBuffer(Buffer.from("GIF89a", "latin1"))?.format).toBe("gif");
    expect(sniffBuffer(Buffer.from("GIF87a", "latin1"))?.format).toBe("gif");
    expect(sniffBuffer(Buffer.from("RIFF\0\0\0\0WEBPVP8L", "latin1"))?.format).toBe("webp");
    expect(sniffBuffer(Buffer.from([0xff, 0xd8, 0x00]))).toBeNull();
  });

  it("returns a fresh object each time", () => {
    const a = sniffBuffer(Buffer.from("GIF89a", "latin1"))!;
    a.ext = "changed";
    expect(sniffBuffer(Buffer.from("GIF89a", "latin1"))!.ext).toBe("gif");
  });
});
