/**
 * Real media files for tests, generated on first use with ffmpeg (lavfi testsrc/sine) and
 * sharp instead of committed binaries. They are cached for the whole test run under
 * DATA_DIR (set per run by global-setup.ts and removed after it), so every test file and
 * worker reuses them: each file is written under a temporary name and renamed into place,
 * which keeps two workers generating the same fixture at once harmless.
 *
 * Everything is small (2 s, 320x240) so the media suite stays fast.
 */
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { crc32 } from "node:zlib";
import sharp from "sharp";
import { afterAll, beforeAll } from "vitest";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
/** Fixtures use the shipped binaries directly, whatever FFMPEG_PATH a test sets. */
export const FIXTURE_FFMPEG: string = (require("@ffmpeg-installer/ffmpeg") as { path: string }).path;
export const FIXTURE_FFPROBE: string = (require("@ffprobe-installer/ffprobe") as { path: string }).path;

/** Text planted in fixtures as metadata; tests check it is gone (or kept). */
export const SECRET = {
  title: "Secret Title 42",
  location: "+51.5000-000.1200/",
  make: "TestCam",
  comment: "secret-comment-7",
  xmp: "secret-xmp-9",
} as const;

export type FixtureName =
  | "png" // 64x48, with tEXt and tIME chunks
  | "pngPlain" // 64x48, nothing to strip
  | "jpegOriented" // 40x20, EXIF Orientation 6 + GPS + Make; left half red, right half blue
  | "jpegExif" // 64x48, orientation 1, EXIF GPS/Make, XMP, a COM segment
  | "webp" // lossy 64x48 with EXIF GPS
  | "webpLossless" // lossless 64x48, no metadata
  | "gif" // static 32x32 with a comment extension
  | "gifAnimated" // 64x48, 5 frames, with a comment extension
  | "webpAnimated" // 64x48, 5 frames
  | "mp4" // H.264 + AAC, 320x240, 2 s, title + location, moov at the end
  | "mp4Rotated" // the same with a 90° display rotation (shows as 240x320)
  | "mp4Silent" // H.264 without audio, 1 s
  | "mov" // QuickTime, H.264 + AAC, title
  | "mkv" // Matroska, H.264 + AAC, title
  | "mkvMpeg2" // Matroska, MPEG-2 video + MP2 audio: needs a transcode
  | "mkvHevc" // Matroska, HEVC + Opus: video copied (hvc1), audio re-encoded
  | "mkvAudioOnly" // Matroska with only a sine wave
  | "webm" // VP8 WebM, 160x120, 1 s, no audio (an upload type since issue 26; not a /convert source)
  | "webmVp8Vorbis" // VP8 + Vorbis, 320x240, 2 s, title + location: transcoded to H.264 + AAC
  | "webmVp9Opus" // VP9 + Opus, 320x240, 2 s (an OBS / browser recording): transcoded to H.264 + AAC
  | "webmAv1" // AV1 (libaom), 160x120, 1 s, no audio: transcoded to H.264
  | "webmH264" // H.264 + Opus in a file whose EBML DocType says webm: video copied, audio to AAC
  | "corruptPng" // PNG signature and header, then garbage
  | "truncatedMp4" // first 60 % of "mp4": no moov
  | "textPng" // plain text named .png
  | "bombPng"; // header claims 30000x30000 (900 MP)

const EXT: Record<FixtureName, string> = {
  png: "png",
  pngPlain: "png",
  jpegOriented: "jpg",
  jpegExif: "jpg",
  webp: "webp",
  webpLossless: "webp",
  gif: "gif",
  gifAnimated: "gif",
  webpAnimated: "webp",
  mp4: "mp4",
  mp4Rotated: "mp4",
  mp4Silent: "mp4",
  mov: "mov",
  mkv: "mkv",
  mkvMpeg2: "mkv",
  mkvHevc: "mkv",
  mkvAudioOnly: "mkv",
  webm: "webm",
  webmVp8Vorbis: "webm",
  webmVp9Opus: "webm",
  webmAv1: "webm",
  webmH264: "webm",
  corruptPng: "png",
  truncatedMp4: "mp4",
  textPng: "png",
  bombPng: "png",
};

let root: Promise<string> | undefined;
/** The run-wide fixture directory. */
export function fixtureDir(): Promise<string> {
  root ??= (async () => {
    const base = process.env.TEST_RUN_DIR || process.env.DATA_DIR;
    const dir = base ? join(base, "media-fixtures") : await mkdtemp(join(tmpdir(), "mediahost-media-fixtures-"));
    await mkdir(dir, { recursive: true });
    return dir;
  })();
  return root;
}

const pending = new Map<FixtureName, Promise<string>>();
/** Path of a fixture, generated on first use in this run. */
export function fixture(name: FixtureName): Promise<string> {
  let p = pending.get(name);
  if (!p) {
    p = (async () => {
      const path = join(await fixtureDir(), `${name}.${EXT[name]}`);
      if (existsSync(path)) return path;
      const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp.${EXT[name]}`;
      await GENERATORS[name](tmp);
      await rename(tmp, path);
      return path;
    })();
    pending.set(name, p);
  }
  return p;
}

/** A fresh empty directory for one test's outputs. */
export async function scratchDir(): Promise<string> {
  const base = join(await fixtureDir(), "..", "media-scratch");
  await mkdir(base, { recursive: true });
  return mkdtemp(join(base, "t-"));
}

/**
 * A scratch directory for the test file (made before its tests, removed after them):
 * returns a function naming a path inside it.
 */
export function useScratchDir(): (name: string) => string {
  let dir = "";
  beforeAll(async () => {
    dir = await scratchDir();
  });
  afterAll(async () => {
    await removeDir(dir);
  });
  return (name) => join(dir, name);
}

/**
 * Whether the filesystem under `dir` can insert a range into a file (ext4, XFS can;
 * tmpfs, overlay on some hosts cannot): fast start then edits in place instead of copying.
 */
export async function insertsRanges(dir: string): Promise<boolean> {
  const probe = join(dir, `.insert-range-${process.pid}`);
  await writeFile(probe, Buffer.alloc(64 * 1024));
  try {
    await run("fallocate", ["--insert-range", "--offset", "0", "--length", String(64 * 1024), "--", probe]);
    return true;
  } catch {
    return false;
  } finally {
    await rm(probe, { force: true });
  }
}

export async function listDir(dir: string): Promise<string[]> {
  return (await readdir(dir)).sort();
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

export async function ffmpeg(args: string[]): Promise<void> {
  await run(FIXTURE_FFMPEG, ["-nostdin", "-hide_banner", "-loglevel", "error", "-y", ...args]);
}

/** ffprobe JSON of a file (streams and format), straight from the binary. */
export async function probeJson(path: string): Promise<{
  streams: Array<{
    codec_type: string;
    codec_name: string;
    codec_tag_string?: string;
    pix_fmt?: string;
    width?: number;
    height?: number;
    tags?: Record<string, string>;
    side_data_list?: Array<{ rotation?: number }>;
  }>;
  format: { format_name: string; duration?: string; tags?: Record<string, string> };
}> {
  const { stdout } = await run(FIXTURE_FFPROBE, ["-v", "error", "-print_format", "json", "-show_streams", "-show_format", path]);
  return JSON.parse(stdout);
}

/** Top-level MP4 box types in file order (to check moov comes before mdat). */
export async function topLevelBoxes(path: string): Promise<string[]> {
  const buf = await readFile(path);
  const boxes: string[] = [];
  let at = 0;
  while (at + 8 <= buf.length) {
    let size = buf.readUInt32BE(at);
    const type = buf.toString("latin1", at + 4, at + 8);
    if (size === 1) size = Number(buf.readBigUInt64BE(at + 8));
    else if (size === 0) size = buf.length - at;
    boxes.push(type);
    if (size < 8) break;
    at += size;
  }
  return boxes;
}

// --- building blocks ---------------------------------------------------------------------

const LAVFI_VIDEO = (size = "320x240", rate = 25) => ["-f", "lavfi", "-i", `testsrc=size=${size}:rate=${rate}`];
const LAVFI_AUDIO = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100"];
const X264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"];
const TAGS = ["-metadata", `title=${SECRET.title}`, "-metadata", `location=${SECRET.location}`];

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** Inserts chunks right after IHDR (8-byte signature + 25-byte IHDR chunk). */
function insertPngChunks(png: Buffer, chunks: Buffer[]): Buffer {
  return Buffer.concat([png.subarray(0, 33), ...chunks, png.subarray(33)]);
}

/** A comment extension just before the GIF trailer. */
function addGifComment(gif: Buffer, text: string): Buffer {
  const body = Buffer.from(text, "latin1");
  const ext = Buffer.concat([Buffer.from([0x21, 0xfe, body.length]), body, Buffer.from([0])]);
  return Buffer.concat([gif.subarray(0, gif.length - 1), ext, gif.subarray(gif.length - 1)]);
}

/** A COM segment right after SOI. */
function addJpegComment(jpeg: Buffer, text: string): Buffer {
  const body = Buffer.from(text, "latin1");
  const seg = Buffer.alloc(4);
  seg.writeUInt16BE(0xfffe, 0);
  seg.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), seg, body, jpeg.subarray(2)]);
}

const gps = {
  IFD0: { Make: SECRET.make },
  IFD3: { GPSLatitudeRef: "N", GPSLatitude: "51/1 30/1 0/1", GPSLongitudeRef: "W", GPSLongitude: "0/1 7/1 12/1" },
};

function gradient(width: number, height: number) {
  return sharp({ create: { width, height, channels: 3, background: "#3366cc" } }).composite([
    {
      input: Buffer.from(
        `<svg width="${width}" height="${height}"><rect x="0" y="0" width="${width / 2}" height="${height}" fill="#ff8800"/><circle cx="${width * 0.7}" cy="${height / 2}" r="${height / 4}" fill="#22aa44"/></svg>`,
      ),
    },
  ]);
}

const GENERATORS: Record<FixtureName, (out: string) => Promise<void>> = {
  async png(out) {
    const png = await gradient(64, 48).png().toBuffer();
    const text = pngChunk("tEXt", Buffer.from(`Comment\0${SECRET.comment}`, "latin1"));
    const time = pngChunk("tIME", Buffer.from([0x07, 0xe8, 1, 2, 3, 4, 5]));
    await writeFile(out, insertPngChunks(png, [text, time]));
  },
  async pngPlain(out) {
    await gradient(64, 48).png().toFile(out);
  },
  async jpegOriented(out) {
    const halves = Buffer.from(
      `<svg width="40" height="20"><rect width="20" height="20" fill="#ff0000"/><rect x="20" width="20" height="20" fill="#0000ff"/></svg>`,
    );
    await sharp(halves).jpeg({ quality: 95 }).withMetadata({ orientation: 6 }).withExifMerge(gps).toFile(out);
  },
  async jpegExif(out) {
    const jpeg = await gradient(64, 48)
      .jpeg({ quality: 90 })
      .withExif(gps)
      .withXmp(
        `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description>${SECRET.xmp}</rdf:Description></rdf:RDF></x:xmpmeta>`,
      )
      .toBuffer();
    await writeFile(out, addJpegComment(jpeg, SECRET.comment));
  },
  async webp(out) {
    await gradient(64, 48).webp({ quality: 80 }).withExif(gps).toFile(out);
  },
  async webpLossless(out) {
    await gradient(64, 48).webp({ lossless: true }).toFile(out);
  },
  async gif(out) {
    const gif = await gradient(32, 32).gif().toBuffer();
    await writeFile(out, addGifComment(gif, SECRET.comment));
  },
  async gifAnimated(out) {
    const raw = `${out}.raw.gif`;
    await ffmpeg([...LAVFI_VIDEO("64x48", 5), "-t", "1", "-f", "gif", raw]);
    await writeFile(out, addGifComment(await readFile(raw), SECRET.comment));
    await rm(raw, { force: true });
  },
  async webpAnimated(out) {
    await sharp(await fixture("gifAnimated"), { animated: true })
      .webp({ quality: 80 })
      .toFile(out);
  },
  async mp4(out) {
    await ffmpeg([...LAVFI_VIDEO(), ...LAVFI_AUDIO, "-t", "2", ...X264, "-c:a", "aac", "-b:a", "64k", ...TAGS, "-f", "mp4", out]);
  },
  async mp4Rotated(out) {
    // ffmpeg 4.1's stream-copy rotate override is counter-clockwise: 270 here is a
    // display matrix of -90°, i.e. "turn 90° clockwise", like a portrait phone video.
    await ffmpeg(["-i", await fixture("mp4"), "-c", "copy", "-metadata:s:v:0", "rotate=270", "-f", "mp4", out]);
  },
  async mp4Silent(out) {
    await ffmpeg([...LAVFI_VIDEO(), "-t", "1", ...X264, "-f", "mp4", out]);
  },
  async mov(out) {
    await ffmpeg([...LAVFI_VIDEO(), ...LAVFI_AUDIO, "-t", "2", ...X264, "-c:a", "aac", "-b:a", "64k", ...TAGS, "-f", "mov", out]);
  },
  async mkv(out) {
    await ffmpeg([...LAVFI_VIDEO(), ...LAVFI_AUDIO, "-t", "2", ...X264, "-c:a", "aac", "-b:a", "64k", ...TAGS, "-f", "matroska", out]);
  },
  async mkvMpeg2(out) {
    await ffmpeg([
      ...LAVFI_VIDEO(),
      ...LAVFI_AUDIO,
      "-t",
      "2",
      "-c:v",
      "mpeg2video",
      "-q:v",
      "5",
      "-c:a",
      "mp2",
      ...TAGS,
      "-f",
      "matroska",
      out,
    ]);
  },
  async mkvHevc(out) {
    await ffmpeg([
      ...LAVFI_VIDEO("320x240", 10),
      ...LAVFI_AUDIO,
      "-t",
      "2",
      "-c:v",
      "libx265",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
      "-x265-params",
      "log-level=error",
      "-c:a",
      "libopus",
      "-b:a",
      "48k",
      "-f",
      "matroska",
      out,
    ]);
  },
  async mkvAudioOnly(out) {
    await ffmpeg([...LAVFI_AUDIO, "-t", "1", "-c:a", "aac", "-f", "matroska", out]);
  },
  async webm(out) {
    await ffmpeg([...LAVFI_VIDEO("160x120", 10), "-t", "1", "-c:v", "libvpx", "-b:v", "200k", "-f", "webm", out]);
  },
  async webmVp8Vorbis(out) {
    await ffmpeg([
      ...LAVFI_VIDEO(),
      ...LAVFI_AUDIO,
      "-t",
      "2",
      ...TAGS,
      "-c:v",
      "libvpx",
      "-b:v",
      "300k",
      "-c:a",
      "libvorbis",
      "-f",
      "webm",
      out,
    ]);
  },
  async webmVp9Opus(out) {
    await ffmpeg([
      ...LAVFI_VIDEO(),
      ...LAVFI_AUDIO,
      "-t",
      "2",
      ...TAGS,
      "-c:v",
      "libvpx-vp9",
      "-deadline",
      "realtime",
      "-cpu-used",
      "8",
      "-b:v",
      "300k",
      "-c:a",
      "libopus",
      "-b:a",
      "48k",
      "-f",
      "webm",
      out,
    ]);
  },
  async webmAv1(out) {
    await ffmpeg([
      ...LAVFI_VIDEO("160x120", 10),
      "-t",
      "1",
      "-c:v",
      "libaom-av1",
      "-strict",
      "experimental",
      "-cpu-used",
      "8",
      "-crf",
      "50",
      "-b:v",
      "0",
      "-pix_fmt",
      "yuv420p",
      "-f",
      "webm",
      out,
    ]);
  },
  async webmH264(out) {
    // The webm muxer refuses H.264, so: Matroska, then the DocType "matroska" overwritten
    // with "webm" and four zero bytes (EBML strings may be zero-padded; ffmpeg reads it as webm).
    const mkv = `${out}.mkv`;
    await ffmpeg([...LAVFI_VIDEO(), ...LAVFI_AUDIO, "-t", "1", ...X264, "-c:a", "libopus", "-b:a", "48k", "-f", "matroska", mkv]);
    const bytes = await readFile(mkv);
    const at = bytes.indexOf("matroska", 0, "latin1");
    if (at < 0 || at > 64) throw new Error("webmH264: no DocType in the EBML header");
    Buffer.from("webm\0\0\0\0", "latin1").copy(bytes, at);
    await writeFile(out, bytes);
    await rm(mkv, { force: true });
  },
  async corruptPng(out) {
    const png = await gradient(64, 48).png().toBuffer();
    const garbage = Buffer.alloc(400);
    for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 131 + 7) & 0xff;
    await writeFile(out, Buffer.concat([png.subarray(0, 33), garbage]));
  },
  async truncatedMp4(out) {
    const mp4 = await readFile(await fixture("mp4"));
    await writeFile(out, mp4.subarray(0, Math.floor(mp4.length * 0.6)));
  },
  async textPng(out) {
    await writeFile(out, "Hello, this is not a picture.\nJust text pretending to be one.\n");
  },
  async bombPng(out) {
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(30000, 0);
    ihdr.writeUInt32BE(30000, 4);
    ihdr[8] = 8; // bit depth
    ihdr[9] = 2; // RGB
    const { deflateSync } = await import("node:zlib");
    const idat = deflateSync(Buffer.alloc(30000 * 3 + 1));
    const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    await writeFile(out, Buffer.concat([sig, pngChunk("IHDR", ihdr), pngChunk("IDAT", idat), pngChunk("IEND", Buffer.alloc(0))]));
  },
};
