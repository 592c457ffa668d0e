/**
 * What ffprobe would say about an MP4 or MOV, read from the `moov` box: ffprobe costs about half
 * of a small remux (docs/performance.md, "MP4 and MOV probed from their boxes"). Null whenever
 * the boxes do not say everything with certainty, and ffprobe answers; what is read from where
 * is in docs/media.md, "Probing MP4 and MOV without ffprobe".
 */
import { open } from "node:fs/promises";
import { childBoxes, endOf, findChild, MalformedBox, payloadOf, topLevelBoxes, type Box } from "./mp4-boxes";
import type { ProbeResult, ProbeStream } from "./probe";

/** ffprobe's format_name for the mov demuxer (the one we force for MP4 and MOV). */
export const MOV_FORMAT_NAME = "mov,mp4,m4a,3gp,3g2,mj2";
/** A moov bigger than this is left to ffprobe rather than held in memory. */
const MAX_MOOV_BYTES = 64 * 1024 * 1024;
/** Top-level boxes of a fragmented or indexed-fragment file: its durations are not in the moov. */
const FRAGMENT_TOP: ReadonlySet<string> = new Set(["moof", "mfra", "sidx", "ssix", "styp"]);

const VIDEO_CODECS: Readonly<Record<string, string>> = { avc1: "h264", avc3: "h264", hvc1: "hevc", hev1: "hevc", av01: "av1", vp09: "vp9" };
/** MPEG-4 object type indications (ISO 14496-1 / ffmpeg's ff_mp4_obj_type) we name. */
const AUDIO_OBJECT_TYPES: Readonly<Record<number, string>> = { 64: "aac", 102: "aac", 103: "aac", 104: "aac", 105: "mp3", 107: "mp3" };

/** What a box or element says is not something the reader answers for with certainty: ffprobe answers. */
export class Unreadable extends Error {}
export const need = (ok: boolean, why: string): void => {
  if (!ok) throw new Unreadable(why);
};

export async function probeMp4Boxes(path: string): Promise<ProbeResult | null> {
  // A file that cannot even be opened is ffprobe's to report, with the error it always gave.
  const file = await open(path, "r").catch(() => null);
  if (!file) return null;
  try {
    const { size } = await file.stat();
    const top = await topLevelBoxes(file, size);
    const moovs = top.filter((b) => b.type === "moov");
    if (moovs.length !== 1 || !top.some((b) => b.type === "mdat") || top.some((b) => FRAGMENT_TOP.has(b.type))) return null;
    const [moov] = moovs;
    if (moov.size > MAX_MOOV_BYTES) return null;
    const buf = Buffer.alloc(moov.size);
    const { bytesRead } = await file.read(buf, 0, moov.size, moov.start);
    if (bytesRead !== moov.size) return null;
    return readMoov(buf, size);
  } catch (error) {
    if (error instanceof MalformedBox || error instanceof Unreadable || error instanceof RangeError) return null;
    throw error;
  } finally {
    await file.close();
  }
}

function readMoov(buf: Buffer, fileSize: number): ProbeResult {
  const moov: Box = { type: "moov", start: 0, size: buf.length, header: buf.readUInt32BE(0) === 1 ? 16 : 8 };
  const children = childBoxes(buf, payloadOf(moov), endOf(moov));
  const mvhd = children.find((c) => c.type === "mvhd");
  need(mvhd !== undefined && mvhd.size >= mvhd.header + 20, "no mvhd");
  const movieScale = buf.readUInt32BE(payloadOf(mvhd!) + (buf[payloadOf(mvhd!)] === 1 ? 20 : 12));
  need(movieScale > 0, "no movie timescale");
  const streams: ProbeStream[] = [];
  for (const child of children) {
    if (child.type === "mvex") throw new Unreadable("fragmented");
    else if (child.type === "trak") streams.push(readTrak(buf, child, streams.length, movieScale));
    else if ((child.type === "udta" || child.type === "meta") && contains(buf, child, "covr")) throw new Unreadable("cover art");
  }
  // ffmpeg's container duration is the longest stream as presented (edit lists applied), not
  // mvhd's figure: its muxer writes mvhd from the audio's unedited length (priming samples
  // included, 2.024 s for a 2 s clip), and ffprobe says 2.
  const durations = streams.map((s) => s.duration ?? 0);
  const duration = Math.max(0, ...durations);
  need(duration > 0, "no duration");
  return { formatName: MOV_FORMAT_NAME, duration, size: fileSize, tags: {}, streams };
}

/**
 * Seconds of an mvhd or mdhd: FullBox, then creation and modification times (4 or 8 bytes
 * each), timescale (4), duration (4 or 8). All ones means "unknown".
 */
function timedDuration(buf: Buffer, box: Box): number | undefined {
  const at = payloadOf(box);
  const wide = buf[at] === 1;
  const scaleOffset = at + (wide ? 20 : 12);
  const timescale = buf.readUInt32BE(scaleOffset);
  const raw = wide ? Number(buf.readBigUInt64BE(scaleOffset + 4)) : buf.readUInt32BE(scaleOffset + 4);
  const unknown = wide ? raw >= Number.MAX_SAFE_INTEGER : raw === 0xffffffff;
  if (timescale === 0 || unknown) return undefined;
  // ffprobe prints microseconds (AV_TIME_BASE) rounded to 6 decimals.
  return Math.round((raw / timescale) * 1e6) / 1e6;
}

function readTrak(buf: Buffer, trak: Box, index: number, movieScale: number): ProbeStream {
  let rotation = 0;
  let handler: string | undefined;
  let duration: number | undefined;
  let edited: number | undefined;
  let entry: SampleEntry | undefined;
  for (const child of childBoxes(buf, payloadOf(trak), endOf(trak))) {
    if (child.type === "tkhd") rotation = tkhdRotation(buf, child);
    else if (child.type === "edts") {
      const elst = findChild(buf, child, "elst");
      if (elst) edited = editedDuration(buf, elst, movieScale);
    } else if (child.type === "mdia") {
      for (const m of childBoxes(buf, payloadOf(child), endOf(child))) {
        if (m.type === "mdhd") duration = timedDuration(buf, m);
        else if (m.type === "hdlr") {
          need(m.size >= m.header + 12, "short hdlr");
          handler = buf.toString("latin1", payloadOf(m) + 8, payloadOf(m) + 12);
        } else if (m.type === "minf") {
          const stbl = findChild(buf, m, "stbl");
          const stsd = stbl && findChild(buf, stbl, "stsd");
          need(stsd !== undefined, "no stsd");
          // FullBox (4) + entry_count (4), then the sample entries.
          const entries = childBoxes(buf, payloadOf(stsd!) + 8, endOf(stsd!));
          need(entries.length === 1, "not one sample entry");
          entry = { buf, box: entries[0] };
        }
      }
    }
  }
  need(entry !== undefined, "no sample entry");
  const base = { index, rotation, duration: edited ?? duration, attachedPic: false, tags: {}, codecTag: entry!.box.type };
  if (handler === "vide") return { ...base, codecType: "video", ...videoEntry(entry!) };
  if (handler === "soun") return { ...base, codecType: "audio", codecName: audioCodec(entry!) };
  throw new Unreadable(`track handler ${String(handler)}`);
}

type SampleEntry = { buf: Buffer; box: Box };

/**
 * A track's presented length under its edit list, in seconds. Only the one-edit list that
 * muxers write (skip the encoder delay or the first B-frames' offset, play at rate 1) is read;
 * empty edits, several edits or other rates are ffmpeg's to interpret (Unreadable).
 */
function editedDuration(buf: Buffer, elst: Box, movieScale: number): number {
  const at = payloadOf(elst);
  const wide = buf[at] === 1;
  const count = buf.readUInt32BE(at + 4);
  need(count === 1, "edit list of several edits");
  const entry = at + 8;
  need(entry + (wide ? 20 : 12) <= endOf(elst), "short elst");
  const segment = wide ? Number(buf.readBigUInt64BE(entry)) : buf.readUInt32BE(entry);
  const mediaTime = wide ? Number(buf.readBigInt64BE(entry + 8)) : buf.readInt32BE(entry + 4);
  const rate = buf.readInt16BE(entry + (wide ? 16 : 8));
  need(mediaTime >= 0 && rate === 1 && segment > 0, "empty edit or rate other than 1");
  return Math.round((segment / movieScale) * 1e6) / 1e6;
}

/**
 * tkhd's display matrix → clockwise quarter turns, as ffmpeg derives its `rotate`
 * (av_display_rotation_get, negated): atan2 of the first row, each column normalised.
 * FullBox, then v0: 20 bytes of times/ids/duration, v1: 32; then 16 bytes; then the matrix.
 */
function tkhdRotation(buf: Buffer, tkhd: Box): number {
  const at = payloadOf(tkhd);
  const matrixAt = at + 4 + (buf[at] === 1 ? 32 : 20) + 16;
  need(matrixAt + 36 <= endOf(tkhd), "short tkhd");
  const [a, b, c, d] = [0, 1, 3, 4].map((i) => buf.readInt32BE(matrixAt + i * 4) / 65536);
  const scaleA = Math.hypot(a, c);
  const scaleB = Math.hypot(b, d);
  if (scaleA === 0 || scaleB === 0) return 0;
  const degrees = (Math.atan2(b / scaleB, a / scaleA) * 180) / Math.PI;
  const quarter = Math.round(degrees / 90) * 90;
  return ((quarter % 360) + 360) % 360;
}

/** VisualSampleEntry: 8 bytes of SampleEntry, 16 reserved, width and height (16 bits each), then 50 bytes to the child boxes. */
function videoEntry({ buf, box }: SampleEntry): Pick<ProbeStream, "codecName" | "width" | "height" | "pixFmt"> {
  const codecName = VIDEO_CODECS[box.type];
  need(codecName !== undefined, `video sample entry ${box.type}`);
  const at = payloadOf(box);
  need(endOf(box) >= at + 78, "short visual sample entry");
  const width = buf.readUInt16BE(at + 24);
  const height = buf.readUInt16BE(at + 26);
  need(width > 0 && height > 0, "no picture size");
  const children = childBoxes(buf, at + 78, endOf(box));
  let pixFmt: string | undefined;
  if (codecName === "h264") {
    const avcC = children.find((c) => c.type === "avcC");
    need(avcC !== undefined, "no avcC");
    pixFmt = h264PixFmt(buf.subarray(payloadOf(avcC!), endOf(avcC!)));
  } else if (codecName === "hevc") {
    // From hvcC's chroma format and bit depth. 4:4:4 coded as RGB (VUI matrix) is ffprobe's
    // gbrp and reads as yuv444p here; uploads copy HEVC whatever its pixel format.
    const hvcC = children.find((c) => c.type === "hvcC");
    need(hvcC !== undefined && hvcC.size >= hvcC.header + 23, "no hvcC");
    pixFmt = hevcPixFmt(buf.subarray(payloadOf(hvcC!), endOf(hvcC!)));
  }
  return { codecName, width, height, pixFmt };
}

/** AudioSampleEntry (QuickTime versions 0–2): the `esds` follows directly or sits inside `wave`. */
function audioCodec({ buf, box }: SampleEntry): string {
  if (box.type === ".mp3") return "mp3";
  need(box.type === "mp4a", `audio sample entry ${box.type}`);
  const at = payloadOf(box);
  need(endOf(box) >= at + 28, "short audio sample entry");
  const version = buf.readUInt16BE(at + 8);
  need(version <= 2, "audio sample entry version");
  const childrenAt = at + 28 + (version === 1 ? 16 : version === 2 ? 36 : 0);
  let children = childBoxes(buf, childrenAt, endOf(box));
  const wave = children.find((c) => c.type === "wave");
  if (wave) children = childBoxes(buf, payloadOf(wave), endOf(wave)).filter((c) => c.type !== "\0\0\0\0");
  const esds = children.find((c) => c.type === "esds");
  need(esds !== undefined, "no esds");
  const codec = AUDIO_OBJECT_TYPES[objectTypeOf(buf.subarray(payloadOf(esds!) + 4, endOf(esds!)))];
  need(codec !== undefined, "audio object type");
  return codec;
}

/** objectTypeIndication of the DecoderConfigDescriptor inside an ES_Descriptor (ISO 14496-1 §7.2.6). */
function objectTypeOf(d: Buffer): number {
  let at = 0;
  const descriptor = (tag: number): void => {
    need(d[at] === tag, `descriptor ${tag}`);
    at += 1;
    for (let i = 0; i < 4; i++) if ((d[at++] & 0x80) === 0) break; // expandable size
  };
  descriptor(0x03);
  const flags = d[at + 2];
  at += 3; // ES_ID, flags
  if (flags & 0x80) at += 2; // dependsOn_ES_ID
  if (flags & 0x40) at += 1 + d[at]; // URL
  if (flags & 0x20) at += 2; // OCR_ES_Id
  descriptor(0x04);
  need(at < d.length, "short esds");
  return d[at];
}

/** ffmpeg's pixel format name for a chroma format (0 mono, 1 4:2:0, 2 4:2:2, 3 4:4:4) and bit depth. */
function pixFmtName(chroma: number, depth: number): string {
  const base = ["gray", "yuv420p", "yuv422p", "yuv444p"][chroma];
  return depth === 8 ? base : `${base}${depth}le`;
}

/** Pixel format of an HEVC track from its hvcC (HEVCDecoderConfigurationRecord): chromaFormat, bitDepthLumaMinus8. */
export function hevcPixFmt(hvcC: Buffer): string {
  need(hvcC.length >= 23, "short hvcC");
  return pixFmtName(hvcC[16] & 0x03, (hvcC[17] & 0x07) + 8);
}

/** SPS profiles that carry chroma_format_idc and bit depths (H.264 §7.3.2.1.1). */
const HIGH_PROFILES: ReadonlySet<number> = new Set([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]);

/**
 * Pixel format of an H.264 track from the first SPS in its avcC: chroma format and bit depth.
 * Full-range 8-bit 4:2:0 (ffprobe's `yuvj420p`, a VUI flag further on) reads as yuv420p:
 * both are played by browsers, which is all the copy decision asks (lib/media/video.ts).
 */
export function h264PixFmt(avcC: Buffer): string {
  need(avcC.length >= 8 && (avcC[5] & 0x1f) >= 1, "no SPS");
  const spsLength = avcC.readUInt16BE(6);
  need(avcC.length >= 8 + spsLength && spsLength >= 4, "short SPS");
  const sps = unescapeRbsp(avcC.subarray(8, 8 + spsLength));
  const profile = sps[1];
  if (!HIGH_PROFILES.has(profile)) return "yuv420p";
  const bits = new BitReader(sps.subarray(4));
  bits.ue(); // seq_parameter_set_id
  const chroma = bits.ue();
  need(chroma <= 3, "chroma_format_idc");
  if (chroma === 3) bits.bit(); // separate_colour_plane_flag
  const depth = bits.ue() + 8;
  need(depth <= 14, "bit depth");
  return pixFmtName(chroma, depth);
}

/** Drops emulation-prevention bytes (00 00 03 → 00 00). */
function unescapeRbsp(nal: Buffer): Buffer {
  const out: number[] = [];
  let zeros = 0;
  for (const byte of nal) {
    if (zeros >= 2 && byte === 3) {
      zeros = 0;
      continue;
    }
    zeros = byte === 0 ? zeros + 1 : 0;
    out.push(byte);
  }
  return Buffer.from(out);
}

class BitReader {
  private at = 0;
  constructor(private readonly buf: Buffer) {}

  bit(): number {
    need(this.at >> 3 < this.buf.length, "SPS ends early");
    const value = (this.buf[this.at >> 3] >> (7 - (this.at & 7))) & 1;
    this.at += 1;
    return value;
  }

  /** Unsigned Exp-Golomb. */
  ue(): number {
    let zeros = 0;
    while (this.bit() === 0) {
      zeros += 1;
      need(zeros < 32, "Exp-Golomb code too long");
    }
    let value = 0;
    for (let i = 0; i < zeros; i++) value = value * 2 + this.bit();
    return 2 ** zeros - 1 + value;
  }
}

function contains(buf: Buffer, box: Box, type: string): boolean {
  // `meta` is a FullBox in MP4 (4 bytes of version/flags first) but a plain box in QuickTime.
  const from = payloadOf(box) + (box.type === "meta" && isFullBoxMeta(buf, box) ? 4 : 0);
  let children: Box[];
  try {
    children = childBoxes(buf, from, endOf(box));
  } catch {
    return false; // leaf data, not boxes
  }
  return children.some((c) => c.type === type || (c.size > c.header && contains(buf, c, type)));
}

const isFullBoxMeta = (buf: Buffer, meta: Box): boolean => buf.readUInt32BE(payloadOf(meta)) === 0;
