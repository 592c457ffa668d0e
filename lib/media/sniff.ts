/**
 * File type from the bytes, never the name or Content-Type (docs/media.md, "Types accepted"):
 * the first 64 bytes, at most 64 KiB for a long `ftyp`, EBML header or legacy QuickTime head.
 * WebM is Matroska, which the interface accepts, so uploads take it; /convert does not.
 */
import { open } from "node:fs/promises";

export type SniffedFormat = "png" | "jpeg" | "webp" | "gif" | "mp4" | "mov" | "mkv" | "webm";
export type ImageFormat = "png" | "jpeg" | "webp" | "gif";
export type VideoFormat = "mp4" | "mov" | "mkv" | "webm";
export type Sniffed = { kind: "image" | "video"; format: SniffedFormat; mime: string; ext: string };

const TYPES: Record<SniffedFormat, Sniffed> = {
  png: { kind: "image", format: "png", mime: "image/png", ext: "png" },
  jpeg: { kind: "image", format: "jpeg", mime: "image/jpeg", ext: "jpg" },
  webp: { kind: "image", format: "webp", mime: "image/webp", ext: "webp" },
  gif: { kind: "image", format: "gif", mime: "image/gif", ext: "gif" },
  mp4: { kind: "video", format: "mp4", mime: "video/mp4", ext: "mp4" },
  mov: { kind: "video", format: "mov", mime: "video/quicktime", ext: "mov" },
  mkv: { kind: "video", format: "mkv", mime: "video/x-matroska", ext: "mkv" },
  webm: { kind: "video", format: "webm", mime: "video/webm", ext: "webm" },
};

/** The descriptor of a format (a fresh object: callers may keep or change it). */
export function sniffedType(format: SniffedFormat): Sniffed {
  return { ...TYPES[format] };
}

export const isImageFormat = (f: string): f is ImageFormat => f === "png" || f === "jpeg" || f === "webp" || f === "gif";
export const isVideoFormat = (f: string): f is VideoFormat => f === "mp4" || f === "mov" || f === "mkv" || f === "webm";

export const SNIFF_HEAD_BYTES = 64;
export const SNIFF_MAX_BYTES = 64 * 1024;

/** A decision, or a request to look again with the first `need` bytes. */
type Step = SniffedFormat | null | { need: number };

const ascii = (buf: Buffer, start: number, end: number) => buf.toString("latin1", start, end);
const startsWith = (buf: Buffer, bytes: readonly number[], at = 0) =>
  buf.length >= at + bytes.length && bytes.every((b, i) => buf[at + i] === b);

const PNG_SIG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] as const;
const EBML_MAGIC = [0x1a, 0x45, 0xdf, 0xa3] as const;

// ISO-BMFF brands. Image and audio-only families are refused even when they also list
// isom/mp42 as compatible brands (an AVIF or M4A always does).
const NOT_VIDEO_BRANDS = new Set([
  "heic",
  "heix",
  "hevc",
  "hevx",
  "heim",
  "heis",
  "hevm",
  "hevs",
  "mif1",
  "msf1",
  "miaf",
  "avif",
  "avis",
  "avci",
  "jpeg",
  "jpgs",
  "crx ",
  "M4A ",
  "M4B ",
  "M4P ",
  "F4A ",
  "F4B ",
]);
const MOV_BRANDS = new Set(["qt  "]);
const MP4_BRANDS = new Set([
  "isom",
  "iso2",
  "iso3",
  "iso4",
  "iso5",
  "iso6",
  "iso7",
  "iso8",
  "iso9",
  "mp41",
  "mp42",
  "mp71",
  "avc1",
  "av01",
  "M4V ",
  "M4VH",
  "M4VP",
  "dash",
  "mmp4",
  "MSNV",
  "XAVC",
  "f4v ",
  "3gp4",
  "3gp5",
  "3gp6",
  "3gp7",
  "3gp8",
  "3gp9",
  "3g2a",
  "3g2b",
  "3g2c",
]);

function sniffFtyp(buf: Buffer, complete: boolean): Step {
  let size = buf.readUInt32BE(0);
  if (size === 0) size = buf.length; // the box runs to the end of the file
  if (size < 16) return null;
  // The major brand decides when it is known; only an unknown one needs the compatible list.
  const major = ascii(buf, 8, 12);
  if (NOT_VIDEO_BRANDS.has(major)) return null;
  if (MOV_BRANDS.has(major)) return "mov";
  if (MP4_BRANDS.has(major)) return "mp4";
  if (size > buf.length && !complete && size <= SNIFF_MAX_BYTES) return { need: size };
  const compatible: string[] = [];
  for (let at = 16; at + 4 <= Math.min(size, buf.length); at += 4) compatible.push(ascii(buf, at, at + 4));
  if (compatible.some((b) => NOT_VIDEO_BRANDS.has(b))) return null;
  if (compatible.some((b) => MOV_BRANDS.has(b))) return "mov";
  if (compatible.some((b) => MP4_BRANDS.has(b))) return "mp4";
  return null;
}

const QT_LEADING_ATOMS = new Set(["wide", "free", "skip", "pnot"]);
const QT_MEDIA_ATOMS = new Set(["moov", "mdat"]);

/** QuickTime files from before `ftyp`: optional filler atoms, then moov or mdat. */
function sniffLegacyQuickTime(buf: Buffer, complete: boolean): Step {
  let at = 0;
  for (let boxes = 0; boxes < 8; boxes++) {
    if (at + 8 > buf.length) return complete || at + 8 > SNIFF_MAX_BYTES ? null : { need: at + 8 };
    const size = buf.readUInt32BE(at);
    const type = ascii(buf, at + 4, at + 8);
    if (QT_MEDIA_ATOMS.has(type)) return size === 1 || size >= 8 || size === 0 ? "mov" : null;
    if (!QT_LEADING_ATOMS.has(type) || size < 8) return null;
    at += size;
  }
  return null;
}

/** EBML variable-length integer at `at`: its byte length and value (marker bit removed). */
function readVint(buf: Buffer, at: number): { length: number; value: number } | null {
  const first = buf[at];
  if (first === undefined || first === 0) return null;
  const length = Math.clz32(first) - 23; // 1..8
  if (at + length > buf.length) return null;
  let value = first & (0xff >> length);
  for (let i = 1; i < length; i++) value = value * 256 + buf[at + i]!;
  return { length, value };
}

function sniffEbml(buf: Buffer, complete: boolean): Step {
  const size = readVint(buf, 4);
  if (!size) return buf.length < 12 && !complete ? { need: 12 } : null;
  const start = 4 + size.length;
  const end = start + size.value;
  if (size.value > SNIFF_MAX_BYTES) return null;
  if (end > buf.length) return complete ? null : { need: end };
  let at = start;
  while (at < end) {
    const id = readVint(buf, at);
    if (!id) return null;
    const idBytes = buf.readUIntBE(at, Math.min(id.length, 4));
    const len = readVint(buf, at + id.length);
    if (!len) return null;
    const dataAt = at + id.length + len.length;
    if (dataAt + len.value > end) return null;
    if (idBytes === 0x4282) {
      // DocType, an ASCII string (may be zero-padded).
      const docType = ascii(buf, dataAt, dataAt + len.value).replace(/\0+$/, "");
      return docType === "matroska" ? "mkv" : docType === "webm" ? "webm" : null;
    }
    at = dataAt + len.value;
  }
  return null;
}

function inspect(buf: Buffer, complete: boolean): Step {
  if (startsWith(buf, PNG_SIG)) return "png";
  if (startsWith(buf, [0xff, 0xd8, 0xff])) return "jpeg";
  if (buf.length >= 6 && (ascii(buf, 0, 6) === "GIF87a" || ascii(buf, 0, 6) === "GIF89a")) return "gif";
  if (buf.length >= 16 && ascii(buf, 0, 4) === "RIFF" && ascii(buf, 8, 12) === "WEBP") {
    return ["VP8 ", "VP8L", "VP8X"].includes(ascii(buf, 12, 16)) ? "webp" : null;
  }
  if (startsWith(buf, EBML_MAGIC)) return sniffEbml(buf, complete);
  if (buf.length >= 12 && ascii(buf, 4, 8) === "ftyp") return sniffFtyp(buf, complete);
  if (buf.length >= 8 && (QT_LEADING_ATOMS.has(ascii(buf, 4, 8)) || QT_MEDIA_ATOMS.has(ascii(buf, 4, 8)))) {
    return sniffLegacyQuickTime(buf, complete);
  }
  if (buf.length < 16 && !complete) return { need: SNIFF_HEAD_BYTES };
  return null;
}

const decide = (step: Step): Sniffed | null => (step === null || typeof step === "object" ? null : sniffedType(step));

/** Of a complete file, or of its first bytes (then unsure cases are null). */
export function sniffBuffer(buf: Uint8Array): Sniffed | null {
  const b = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  return decide(inspect(b, true));
}

export async function sniffFile(path: string): Promise<Sniffed | null> {
  const handle = await open(path, "r");
  try {
    let want = SNIFF_HEAD_BYTES;
    for (;;) {
      const buf = Buffer.alloc(want);
      const { bytesRead } = await handle.read(buf, 0, want, 0);
      const complete = bytesRead < want || want >= SNIFF_MAX_BYTES;
      const step = inspect(buf.subarray(0, bytesRead), complete);
      if (step !== null && typeof step === "object") {
        if (step.need <= want || complete) return null;
        want = Math.min(step.need, SNIFF_MAX_BYTES);
        continue;
      }
      return decide(step);
    }
  } finally {
    await handle.close();
  }
}
