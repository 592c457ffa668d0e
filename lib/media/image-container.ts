/**
 * Lossless metadata removal for PNG, JPEG, WebP and GIF by dropping chunks: the pixel data stays
 * byte-for-byte (what is kept and dropped: docs/media.md, "Images"). Bytes after the image end
 * (polyglots, "motion photo" videos) always go. Anything unexpected returns null, and the caller
 * falls back to sharp, which either manages or reports the file as corrupt.
 */
import type { ImageFormat } from "./sniff";

export type ContainerInfo = {
  /** More than one frame (animated GIF/WebP, APNG). */
  animated: boolean;
  /** No lossy coding: PNG, GIF, WebP made only of VP8L frames. */
  lossless: boolean;
};

export type Rewritten = {
  bytes: Buffer;
  /** False when `bytes` is the input unchanged. */
  changed: boolean;
  /** Something was dropped as metadata (not counting trailing bytes). */
  strippedMetadata: boolean;
  info: ContainerInfo;
};

/** A byte range of the input; `meta` marks ranges that are metadata. */
type Part = { start: number; end: number; meta: boolean };
/** `end`: where the image ends in the input; `suffix`: bytes to add (a missing GIF trailer). */
type Scan = { parts: Part[]; end: number; info: ContainerInfo; suffix?: Buffer };
export type ImageScan = Readonly<Scan>;

export type RewritePlan = {
  changed: boolean;
  /** Something was dropped as metadata (not counting trailing bytes). */
  strippedMetadata: boolean;
  size: number;
  /** Writes the output at the start of `target` (at least `size` bytes); returns that part of it. */
  writeTo(target: Buffer): Buffer;
};

/** Walks the container; null when it cannot be walked (then only a decode can tell). */
export function scanImage(buf: Buffer, format: ImageFormat): ImageScan | null {
  return SCANNERS[format](buf);
}

export function planRewrite(buf: Buffer, scan: ImageScan, format: ImageFormat, keepMetadata: boolean): RewritePlan {
  const kept = scan.parts.filter((p) => keepMetadata || !p.meta);
  const strippedMetadata = kept.length !== scan.parts.length;
  const changed = strippedMetadata || scan.end !== buf.length || scan.suffix !== undefined;
  const pieces = kept.map((p) => buf.subarray(p.start, p.end));
  if (scan.suffix) pieces.push(scan.suffix);
  const size = pieces.reduce((n, p) => n + p.length, 0);
  return {
    changed,
    strippedMetadata,
    size,
    writeTo(target) {
      let at = 0;
      for (const piece of pieces) at += piece.copy(target, at);
      const bytes = target.subarray(0, size);
      return format === "webp" ? fixWebpHeader(bytes, strippedMetadata) : bytes;
    },
  };
}

export function rewriteImage(buf: Buffer, format: ImageFormat, keepMetadata: boolean): Rewritten | null {
  const scan = scanImage(buf, format);
  if (!scan) return null;
  const plan = planRewrite(buf, scan, format, keepMetadata);
  const bytes = plan.changed ? plan.writeTo(Buffer.allocUnsafe(plan.size)) : buf;
  return { bytes, changed: plan.changed, strippedMetadata: plan.strippedMetadata, info: scan.info };
}

export function inspectImage(buf: Buffer, format: ImageFormat): ContainerInfo | null {
  return scanImage(buf, format)?.info ?? null;
}

const SCANNERS: Record<ImageFormat, (buf: Buffer) => Scan | null> = {
  png: scanPng,
  jpeg: scanJpeg,
  webp: scanWebp,
  gif: scanGif,
};

// --- PNG --------------------------------------------------------------------------------

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Chunks needed to decode and colour the image (incl. APNG animation and HDR info). */
const PNG_KEEP = new Set([
  "IHDR",
  "PLTE",
  "IDAT",
  "IEND",
  "tRNS",
  "cHRM",
  "gAMA",
  "iCCP",
  "sBIT",
  "sRGB",
  "cICP",
  "mDCV",
  "mDCv",
  "cLLI",
  "cLLi",
  "bKGD",
  "hIST",
  "pHYs",
  "sPLT",
  "acTL",
  "fcTL",
  "fdAT",
]);

function scanPng(buf: Buffer): Scan | null {
  if (buf.length < 8 || !buf.subarray(0, 8).equals(PNG_SIGNATURE)) return null;
  const parts: Part[] = [{ start: 0, end: 8, meta: false }];
  let pos = 8;
  let frames = 0;
  for (;;) {
    if (pos + 12 > buf.length) return null; // no IEND: truncated
    const length = buf.readUInt32BE(pos);
    const type = buf.toString("latin1", pos + 4, pos + 8);
    const end = pos + 12 + length;
    if (length > 0x7fffffff || end > buf.length || !/^[A-Za-z]{4}$/.test(type)) return null;
    const critical = type.charCodeAt(0) < 0x61; // upper-case first letter
    if (!PNG_KEEP.has(type) && critical) return null; // a critical chunk we do not know
    if (type === "acTL" && length >= 4) frames = buf.readUInt32BE(pos + 8);
    parts.push({ start: pos, end, meta: !PNG_KEEP.has(type) });
    pos = end;
    if (type === "IEND") break;
  }
  return { parts, end: pos, info: { animated: frames > 1, lossless: true } };
}

// --- JPEG -------------------------------------------------------------------------------

const startsWithAscii = (buf: Buffer, at: number, end: number, text: string) =>
  end - at >= text.length && buf.toString("latin1", at, at + text.length) === text;

/** APPn/COM segments that are metadata; everything else (tables, frames, scans) is kept. */
function jpegSegmentIsMeta(marker: number, buf: Buffer, dataAt: number, end: number): boolean {
  if (marker === 0xfe) return true; // COM
  if (marker < 0xe0 || marker > 0xef) return false;
  if (marker === 0xe0) return !startsWithAscii(buf, dataAt, end, "JFIF\0"); // JFXX thumbnails go
  if (marker === 0xe2) return !startsWithAscii(buf, dataAt, end, "ICC_PROFILE\0"); // MPF, FPXR go
  if (marker === 0xee) return !startsWithAscii(buf, dataAt, end, "Adobe"); // colour transform flag
  return true; // APP1 Exif/XMP, APP13 IPTC/Photoshop, APP3..APP15 vendor blocks
}

/** Index of the 0xFF of the next real marker after entropy-coded data, or -1. */
function nextJpegMarker(buf: Buffer, from: number): number {
  let i = from;
  for (;;) {
    i = buf.indexOf(0xff, i);
    if (i < 0 || i + 1 >= buf.length) return -1;
    const next = buf[i + 1]!;
    if (next === 0x00 || (next >= 0xd0 && next <= 0xd7))
      i += 2; // stuffed byte or restart marker
    else if (next === 0xff)
      i += 1; // fill byte
    else return i;
  }
}

function scanJpeg(buf: Buffer): Scan | null {
  if (buf.length < 4 || buf[0] !== 0xff || buf[1] !== 0xd8) return null;
  const parts: Part[] = [{ start: 0, end: 2, meta: false }];
  let pos = 2;
  for (;;) {
    if (pos + 2 > buf.length || buf[pos] !== 0xff) return null; // no EOI: truncated or broken
    const start = pos;
    let m = pos + 1;
    while (m < buf.length && buf[m] === 0xff) m++; // fill bytes before a marker
    if (m >= buf.length) return null;
    const marker = buf[m]!;
    pos = m + 1;
    if (marker === 0xd9) {
      parts.push({ start, end: pos, meta: false });
      return { parts, end: pos, info: { animated: false, lossless: false } };
    }
    if (marker === 0xd8 || marker === 0x00) return null;
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      parts.push({ start, end: pos, meta: false }); // stand-alone markers
      continue;
    }
    if (pos + 2 > buf.length) return null;
    const length = buf.readUInt16BE(pos);
    const end = pos + length;
    if (length < 2 || end > buf.length) return null;
    if (marker === 0xda) {
      // SOS: the scan's entropy-coded data runs to the next marker.
      const dataEnd = nextJpegMarker(buf, end);
      if (dataEnd < 0) return null;
      parts.push({ start, end: dataEnd, meta: false });
      pos = dataEnd;
      continue;
    }
    parts.push({ start, end, meta: jpegSegmentIsMeta(marker, buf, pos + 2, end) });
    pos = end;
  }
}

// --- WebP -------------------------------------------------------------------------------

const WEBP_KEEP = new Set(["VP8X", "VP8 ", "VP8L", "ALPH", "ANIM", "ANMF", "ICCP"]);
const VP8X_EXIF = 0x08;
const VP8X_XMP = 0x04;

function scanWebp(buf: Buffer): Scan | null {
  if (buf.length < 20 || buf.toString("latin1", 0, 4) !== "RIFF" || buf.toString("latin1", 8, 12) !== "WEBP") return null;
  const riffEnd = 8 + buf.readUInt32LE(4);
  if (riffEnd > buf.length || riffEnd < 20) return null;
  const parts: Part[] = [{ start: 0, end: 12, meta: false }];
  let frames = 0;
  let lossy = false;
  let pos = 12;
  while (pos < riffEnd) {
    if (pos + 8 > riffEnd) return null;
    const fourcc = buf.toString("latin1", pos, pos + 4);
    const size = buf.readUInt32LE(pos + 4);
    const dataEnd = pos + 8 + size;
    if (dataEnd > riffEnd) return null;
    const end = Math.min(dataEnd + (size & 1), riffEnd); // chunks are padded to even sizes
    if (fourcc === "VP8 ") lossy = true;
    if (fourcc === "ANMF") {
      frames++;
      // Frame header (16 bytes), then the frame's own ALPH/VP8/VP8L chunks.
      for (let sub = pos + 8 + 16; sub + 8 <= dataEnd; ) {
        if (buf.toString("latin1", sub, sub + 4) === "VP8 ") lossy = true;
        const subSize = buf.readUInt32LE(sub + 4);
        sub += 8 + subSize + (subSize & 1);
      }
    }
    parts.push({ start: pos, end, meta: !WEBP_KEEP.has(fourcc) });
    pos = end;
  }
  return { parts, end: riffEnd, info: { animated: frames > 1, lossless: !lossy } };
}

/** After dropping chunks: the RIFF size, and VP8X no longer announcing EXIF/XMP. */
function fixWebpHeader(bytes: Buffer, strippedMetadata: boolean): Buffer {
  bytes.writeUInt32LE(bytes.length - 8, 4);
  if (strippedMetadata && bytes.toString("latin1", 12, 16) === "VP8X" && bytes.length > 20) {
    bytes[20] = bytes[20]! & ~(VP8X_EXIF | VP8X_XMP);
  }
  return bytes;
}

// --- GIF --------------------------------------------------------------------------------

/** Application extensions that affect display: loop count and the GIF ICC profile. */
const GIF_KEEP_APPS = new Set(["NETSCAPE", "ANIMEXTS", "ICCRGBG1"]);

/** Index after a run of data sub-blocks (ended by a zero-length block), or -1. */
function skipSubBlocks(buf: Buffer, at: number): number {
  let p = at;
  while (p < buf.length) {
    const n = buf[p]!;
    p += 1;
    if (n === 0) return p;
    p += n;
  }
  return -1;
}

const colourTableBytes = (flags: number) => (flags & 0x80 ? 3 * 2 ** ((flags & 0x07) + 1) : 0);

function scanGif(buf: Buffer): Scan | null {
  if (buf.length < 14) return null;
  const sig = buf.toString("latin1", 0, 6);
  if (sig !== "GIF87a" && sig !== "GIF89a") return null;
  let pos = 13 + colourTableBytes(buf[10]!);
  if (pos > buf.length) return null;
  const parts: Part[] = [{ start: 0, end: pos, meta: false }];
  let frames = 0;
  for (;;) {
    if (pos >= buf.length) {
      // Many encoders leave out the trailer after a complete last block; browsers do not
      // mind. Add it rather than re-encode (re-quantize) the whole GIF.
      if (frames === 0) return null;
      return { parts, end: pos, info: { animated: frames > 1, lossless: true }, suffix: Buffer.from([0x3b]) };
    }
    const block = buf[pos]!;
    if (block === 0x3b) {
      parts.push({ start: pos, end: pos + 1, meta: false });
      return { parts, end: pos + 1, info: { animated: frames > 1, lossless: true } };
    }
    if (block === 0x21) {
      if (pos + 2 > buf.length) return null;
      const label = buf[pos + 1]!;
      const end = skipSubBlocks(buf, pos + 2);
      if (end < 0) return null;
      let meta = label === 0xfe; // comment
      if (label === 0xff) {
        const app = buf[pos + 2] === 11 ? buf.toString("latin1", pos + 3, pos + 11) : "";
        meta = !GIF_KEEP_APPS.has(app); // e.g. "XMP Data"
      }
      parts.push({ start: pos, end, meta });
      pos = end;
      continue;
    }
    if (block === 0x2c) {
      if (pos + 11 > buf.length) return null;
      frames++;
      const dataAt = pos + 10 + colourTableBytes(buf[pos + 9]!) + 1; // + LZW minimum code size
      const end = skipSubBlocks(buf, dataAt);
      if (end < 0) return null;
      parts.push({ start: pos, end, meta: false });
      pos = end;
      continue;
    }
    return null;
  }
}
