/**
 * MKV → fast-start MP4 without ffmpeg for one H.264 track and at most one AAC-LC track, no
 * lacing (the remux was most of an MKV conversion's time). Both codecs store frames in Matroska
 * as MP4 does, so frames are copied byte for byte; anything else resolves false before a byte is
 * written. tests/media/matroska-to-mp4.test.ts compares the output with ffmpeg's own remux.
 *
 * Timing, which Matroska and MP4 keep differently:
 * - Matroska stores presentation times (in TimestampScale units, usually milliseconds); MP4
 *   stores decode times and composition offsets. Video decode times are the sorted
 *   presentation times moved back by the least delay that keeps every frame's decode time at
 *   or before its presentation time (B-frames), in a 90 kHz timescale. With a
 *   `DefaultDuration`, presentation times rounded to the millisecond go back onto the
 *   frame-rate grid they were rounded from (33/34 ms steps become 3000 ticks again).
 * - Audio runs in a timescale of its sample rate; a frame that follows its predecessor within
 *   a millisecond's rounding is placed exactly 1024 samples on (960 with that flag), so
 *   millisecond timestamps add no jitter, and a real gap is kept.
 * - An edit list per track puts presentation time 0 where Matroska's time 0 was, so audio and
 *   video stay in sync as the file had them.
 */
import { open, rm, type FileHandle } from "node:fs/promises";
import { ascii, children, type Element, float, headerIn, one, uint, vint } from "./ebml";
import type { FastStartOptions } from "./faststart";
import { need, Unreadable } from "./mp4-probe";
import { boxHeader } from "./mp4-boxes";
import { MP4_FTYP } from "./quicktime-moov";

const ID = {
  EBML: 0x1a45dfa3,
  Segment: 0x18538067,
  Info: 0x1549a966,
  TimestampScale: 0x2ad7b1,
  Tracks: 0x1654ae6b,
  TrackEntry: 0xae,
  TrackNumber: 0xd7,
  TrackType: 0x83,
  CodecID: 0x86,
  CodecPrivate: 0x63a2,
  CodecDelay: 0x56aa,
  DefaultDuration: 0x23e383,
  ContentEncodings: 0x6d80,
  TrackOperation: 0xe2,
  Video: 0xe0,
  PixelWidth: 0xb0,
  PixelHeight: 0xba,
  DisplayWidth: 0x54b0,
  DisplayHeight: 0x54ba,
  DisplayUnit: 0x54b2,
  Audio: 0xe1,
  SamplingFrequency: 0xb5,
  OutputSamplingFrequency: 0x78b5,
  Channels: 0x9f,
  Attachments: 0x1941a469,
  Cluster: 0x1f43b675,
  Timestamp: 0xe7,
  SimpleBlock: 0xa3,
  BlockGroup: 0xa0,
  Block: 0xa1,
  BlockDuration: 0x9b,
  ReferenceBlock: 0xfb,
} as const;

const WINDOW = 1024 * 1024;
const WRITE_CHUNK = 1024 * 1024;
/** Info and Tracks are small; larger ones are not a file we rewrite. */
const MAX_HEADER_ELEMENT = 1024 * 1024;
const VIDEO_TIMESCALE = 90_000;
const MOVIE_TIMESCALE = 1000;
const UINT32_MAX = 0xffff_ffff;

type Track = {
  number: number;
  kind: "video" | "audio";
  codecPrivate: Buffer;
  /** Nanoseconds per frame, when the track says. */
  defaultDuration?: number;
  width: number;
  height: number;
  sampleRate: number;
  channels: number;
  /** AAC samples per frame (1024, or 960 with frameLengthFlag). */
  frameLength: number;
};

/** One frame: where its bytes are in the input, its presentation time (ns), its flags. */
type Frame = { track: number; pos: number; size: number; ns: number; key: boolean; durationNs?: number };

/** A track's frames in MP4 form: decode-time durations, composition offsets, in its timescale. */
type Timing = {
  timescale: number;
  durations: number[];
  offsets: number[];
  /** Decode time of the first frame (ticks; negative when B-frames move it before 0). */
  firstDecode: number;
  /** Presentation time of the earliest frame, and the end of the last one shown (ticks). */
  start: number;
  end: number;
  /** Sum of the durations: the media's length in its own timeline. */
  media: number;
};

/** Resolves false, with nothing written, when the file is not the case described above. */
export async function matroskaToMp4(input: string, output: string, opts: FastStartOptions): Promise<boolean> {
  if (opts.keepMetadata) return false;
  const file = await open(input, "r");
  try {
    const reader = new Reader(file, (await file.stat()).size);
    let planned: Planned | null;
    try {
      const layout = await readLayout(reader, opts.withAudio);
      planned = layout && plan(layout);
    } catch (error) {
      if (error instanceof Unreadable || error instanceof RangeError) return false;
      throw error;
    }
    if (!planned) return false;
    await writeFrames(reader, output, planned);
  } finally {
    await file.close();
  }
  if (opts.consumeInput) await rm(input, { force: true });
  return true;
}

type Layout = { video: Track; audio?: Track; frames: Frame[] };

class Reader {
  private window = Buffer.alloc(0);
  private windowStart = 0;
  constructor(
    private readonly file: FileHandle,
    readonly size: number,
  ) {}

  /** `length` bytes at `at` (fewer at the end of the file); valid until the next call. */
  async bytes(at: number, length: number): Promise<Buffer> {
    const end = Math.min(at + length, this.size);
    if (at >= this.windowStart && end <= this.windowStart + this.window.length) {
      return this.window.subarray(at - this.windowStart, end - this.windowStart);
    }
    const buf = Buffer.allocUnsafe(Math.max(WINDOW, end - at));
    const { bytesRead } = await this.file.read(buf, 0, Math.min(buf.length, this.size - at), at);
    this.window = buf.subarray(0, bytesRead);
    this.windowStart = at;
    return this.window.subarray(0, Math.min(bytesRead, end - at));
  }

  async header(at: number): Promise<Element> {
    return headerIn(await this.bytes(at, 12), 0, at)[0];
  }

  async data(el: Element, max = MAX_HEADER_ELEMENT): Promise<Buffer> {
    need(el.size !== null && el.size <= max, "element too large");
    const buf = await this.bytes(el.dataStart, el.size!);
    need(buf.length === el.size, "element ends past the end of the file");
    return Buffer.from(buf);
  }
}

async function readLayout(reader: Reader, withAudio: boolean): Promise<Layout | null> {
  const ebml = await reader.header(0);
  need(ebml.id === ID.EBML && ebml.size !== null, "not EBML");
  const segment = await reader.header(ebml.dataStart + ebml.size!);
  need(segment.id === ID.Segment, "no Segment");
  const segmentEnd = segment.size === null ? reader.size : segment.dataStart + segment.size;
  need(segmentEnd <= reader.size, "truncated");

  let timestampScale = 1_000_000;
  let tracks: Track[] | null = null;
  const frames: Frame[] = [];
  for (let at = segment.dataStart; at < segmentEnd; ) {
    const el = await reader.header(at);
    if (el.id === ID.Cluster) {
      need(tracks !== null, "a Cluster before the Tracks");
      at = await readCluster(reader, el, segmentEnd, tracks!, timestampScale, frames);
      continue;
    }
    need(el.size !== null && el.dataStart + el.size <= segmentEnd, "top-level element overruns the Segment");
    if (el.id === ID.Info) {
      const scale = one(children(await reader.data(el)), ID.TimestampScale);
      if (scale !== undefined) timestampScale = uint(scale);
      need(timestampScale > 0, "TimestampScale");
    } else if (el.id === ID.Tracks) {
      need(tracks === null, "two Tracks");
      tracks = readTracks(await reader.data(el));
      if (!tracks) return null;
    } else if (el.id === ID.Attachments) return null;
    at = el.dataStart + el.size!;
  }
  if (!tracks) return null;
  const video = tracks.find((t) => t.kind === "video");
  const audio = tracks.find((t) => t.kind === "audio");
  if (!video || (audio !== undefined) !== withAudio) return null;
  if (!frames.some((f) => f.track === video.number)) return null;
  return { video, audio, frames };
}

/** The tracks when they are one H.264 video and at most one AAC-LC audio; null otherwise. */
function readTracks(data: Buffer): Track[] | null {
  const out: Track[] = [];
  for (const entry of children(data).filter((k) => k.id === ID.TrackEntry)) {
    const track = readTrack(entry.data);
    if (!track) return null;
    out.push(track);
  }
  const videos = out.filter((t) => t.kind === "video").length;
  const audios = out.filter((t) => t.kind === "audio").length;
  return videos === 1 && audios <= 1 && new Set(out.map((t) => t.number)).size === out.length ? out : null;
}

function readTrack(data: Buffer): Track | null {
  const kids = children(data);
  const number = uint(one(kids, ID.TrackNumber) ?? Buffer.alloc(0));
  const type = uint(one(kids, ID.TrackType) ?? Buffer.alloc(0));
  const codec = ascii(one(kids, ID.CodecID) ?? Buffer.alloc(0));
  const codecPrivate = one(kids, ID.CodecPrivate);
  if (number === 0 || !codecPrivate) return null;
  if (one(kids, ID.ContentEncodings) || one(kids, ID.TrackOperation)) return null;
  const delay = one(kids, ID.CodecDelay);
  if (delay && uint(delay) !== 0) return null;
  const duration = one(kids, ID.DefaultDuration);
  const base = { number, codecPrivate: Buffer.from(codecPrivate), defaultDuration: duration ? uint(duration) || undefined : undefined };
  if (type === 1 && codec === "V_MPEG4/ISO/AVC") return readVideo(kids, base);
  if (type === 2 && codec === "A_AAC") return readAudio(kids, base);
  return null;
}

type TrackBase = Pick<Track, "number" | "codecPrivate" | "defaultDuration">;

function readVideo(kids: { id: number; data: Buffer }[], base: TrackBase): Track | null {
  // avcC version 1: the same record MP4's `avcC` box holds.
  if (base.codecPrivate.length < 7 || base.codecPrivate[0] !== 1) return null;
  const video = one(kids, ID.Video);
  if (!video) return null;
  const v = children(video);
  const width = uint(one(v, ID.PixelWidth) ?? Buffer.alloc(0));
  const height = uint(one(v, ID.PixelHeight) ?? Buffer.alloc(0));
  if (width <= 0 || height <= 0 || width > 0xffff || height > 0xffff) return null;
  // A display size of another shape (anamorphic video) would need a `pasp` box: ffmpeg's case.
  const displayUnit = one(v, ID.DisplayUnit);
  if (displayUnit && uint(displayUnit) !== 0) return null;
  const dw = one(v, ID.DisplayWidth);
  const dh = one(v, ID.DisplayHeight);
  if ((dw && uint(dw) !== width) || (dh && uint(dh) !== height)) return null;
  return { ...base, kind: "video", width, height, sampleRate: 0, channels: 0, frameLength: 0 };
}

function readAudio(kids: { id: number; data: Buffer }[], base: TrackBase): Track | null {
  const audio = one(kids, ID.Audio);
  if (!audio) return null;
  const a = children(audio);
  const rate = float(one(a, ID.SamplingFrequency) ?? Buffer.alloc(0));
  const outputRate = one(a, ID.OutputSamplingFrequency);
  const channels = uint(one(a, ID.Channels) ?? Buffer.from([1]));
  if (!Number.isInteger(rate) || rate <= 0 || rate > 0xffff) return null;
  if (outputRate && float(outputRate) !== rate) return null;
  const config = aacConfig(base.codecPrivate);
  if (!config || config.sampleRate !== rate || channels < 1 || channels > 8) return null;
  return { ...base, kind: "audio", width: 0, height: 0, sampleRate: rate, channels, frameLength: config.frameLength };
}

const AAC_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];

/** An AudioSpecificConfig of AAC-LC (object type 2): its sample rate and frame length; null for anything else. */
function aacConfig(asc: Buffer): { sampleRate: number; frameLength: number } | null {
  if (asc.length < 2) return null;
  const bits = asc.readUInt16BE(0);
  if (bits >> 11 !== 2) return null;
  const rateIndex = (bits >> 7) & 0xf;
  // An explicit 24-bit rate (index 15) is rare enough to leave to ffmpeg.
  if (rateIndex >= AAC_RATES.length) return null;
  const frameLengthFlag = (bits >> 2) & 1;
  return { sampleRate: AAC_RATES[rateIndex], frameLength: frameLengthFlag ? 960 : 1024 };
}

/** Cluster-level elements have IDs of one or two bytes; a four-byte ID ends an unknown-size Cluster. */
const isTopLevel = (id: number): boolean => id > 0xffffff;

/** Resolves where the next top-level element starts. */
async function readCluster(
  reader: Reader,
  cluster: Element,
  segmentEnd: number,
  tracks: Track[],
  scale: number,
  frames: Frame[],
): Promise<number> {
  const end = cluster.size === null ? segmentEnd : cluster.dataStart + cluster.size;
  need(end <= segmentEnd, "Cluster overruns the Segment");
  let clusterTime: number | null = null;
  let at = cluster.dataStart;
  while (at < end) {
    const el = await reader.header(at);
    if (cluster.size === null && isTopLevel(el.id)) return at;
    need(el.size !== null && el.dataStart + el.size <= end, "element overruns its Cluster");
    if (el.id === ID.Timestamp) clusterTime = uint(await reader.data(el));
    else if (el.id === ID.SimpleBlock || el.id === ID.BlockGroup) {
      need(clusterTime !== null, "a block before the Cluster's Timestamp");
      const frame = el.id === ID.SimpleBlock ? await readBlock(reader, el, true) : await readGroup(reader, el);
      const track = tracks.find((t) => t.number === frame.track);
      need(track !== undefined, "a block of an unknown track");
      const ns = (clusterTime! + frame.relative) * scale;
      need(ns >= 0, "negative timestamp");
      frames.push({
        track: frame.track,
        pos: frame.pos,
        size: frame.size,
        ns,
        key: frame.key,
        durationNs: frame.duration === undefined ? undefined : frame.duration * scale,
      });
    }
    at = el.dataStart + el.size!;
  }
  return end;
}

type Block = { track: number; relative: number; key: boolean; pos: number; size: number; duration?: number };

/** A (Simple)Block's header: track, relative timestamp, flags; the frame is the rest. */
async function readBlock(reader: Reader, el: Element, simple: boolean): Promise<Block> {
  const head = await reader.bytes(el.dataStart, Math.min(el.size!, 12));
  const track = vint(head, 0, 8, false);
  need(track.value !== null && head.length >= track.length + 3, "block header");
  const relative = head.readInt16BE(track.length);
  const flags = head[track.length + 2];
  // Lacing (several frames in one block) is left to ffmpeg.
  need((flags & 0x06) === 0, "laced block");
  const headerLength = track.length + 3;
  need(el.size! > headerLength, "empty block");
  return {
    track: track.value!,
    relative,
    key: simple ? (flags & 0x80) !== 0 : true,
    pos: el.dataStart + headerLength,
    size: el.size! - headerLength,
  };
}

/** A BlockGroup: its Block, a key frame unless it references another, and its duration when given. */
async function readGroup(reader: Reader, group: Element): Promise<Block> {
  let block: Block | undefined;
  let references = false;
  let duration: number | undefined;
  for (let at = group.dataStart; at < group.dataStart + group.size!; ) {
    const el = await reader.header(at);
    need(el.size !== null && el.dataStart + el.size <= group.dataStart + group.size!, "element overruns its BlockGroup");
    if (el.id === ID.Block) block = await readBlock(reader, el, false);
    else if (el.id === ID.ReferenceBlock) references = true;
    else if (el.id === ID.BlockDuration) duration = uint(await reader.data(el));
    at = el.dataStart + el.size!;
  }
  need(block !== undefined, "BlockGroup without a Block");
  return { ...block!, key: !references, duration };
}

/** Video: decode times from the presentation times (B-frames), on the frame grid when the track has one. */
function videoTiming(frames: Frame[], track: Track): Timing {
  const toTicks = (ns: number): number => Math.round((ns * VIDEO_TIMESCALE) / 1e9);
  const presentation = onGrid(frames, track.defaultDuration).map(toTicks);
  const sorted = [...presentation].sort((a, b) => a - b);
  need(
    sorted.every((t, i) => i === 0 || t > sorted[i - 1]),
    "two frames at one time",
  );
  let delay = 0;
  for (let i = 0; i < sorted.length; i++) delay = Math.max(delay, sorted[i] - presentation[i]);
  const decode = sorted.map((t) => t - delay);
  const last = frames[frames.length - 1];
  const lastNs = last.durationNs ?? track.defaultDuration;
  const lastDuration = lastNs
    ? toTicks(lastNs)
    : decode.length > 1
      ? decode[decode.length - 1] - decode[decode.length - 2]
      : VIDEO_TIMESCALE / 30;
  const durations = decode.map((t, i) => (i + 1 < decode.length ? decode[i + 1] - t : Math.max(1, lastDuration)));
  const shown = { start: sorted[0], end: sorted[sorted.length - 1] + Math.max(1, lastDuration) };
  return timing(
    VIDEO_TIMESCALE,
    durations,
    presentation.map((p, i) => p - decode[i]),
    decode[0],
    shown,
  );
}

/**
 * Presentation times put back on the grid of `frameNs` from the first one, when every time is
 * within a millisecond of it (Matroska rounds them to its TimestampScale); otherwise as stored.
 */
function onGrid(frames: Frame[], frameNs: number | undefined): number[] {
  const times = frames.map((f) => f.ns);
  if (!frameNs) return times;
  const first = Math.min(...times);
  const snapped = times.map((ns) => first + Math.round((ns - first) / frameNs) * frameNs);
  return snapped.every((s, i) => Math.abs(s - times[i]) <= 1_000_000) ? snapped : times;
}

/** Audio: sample times, a frame exactly one frame length after the last unless the file has a gap. */
function audioTiming(frames: Frame[], track: Track): Timing {
  const rate = track.sampleRate;
  const slack = Math.ceil(rate / 1000);
  const starts: number[] = [];
  for (const frame of frames) {
    const stored = Math.round((frame.ns * rate) / 1e9);
    const next = starts.length ? starts[starts.length - 1] + track.frameLength : stored;
    starts.push(Math.abs(stored - next) <= slack ? next : stored);
  }
  need(
    starts.every((t, i) => i === 0 || t > starts[i - 1]),
    "audio frames out of order",
  );
  const durations = starts.map((t, i) => (i + 1 < starts.length ? starts[i + 1] - t : track.frameLength));
  const shown = { start: starts[0], end: starts[starts.length - 1] + track.frameLength };
  return timing(
    rate,
    durations,
    starts.map(() => 0),
    starts[0],
    shown,
  );
}

function timing(
  timescale: number,
  durations: number[],
  offsets: number[],
  firstDecode: number,
  shown: { start: number; end: number },
): Timing {
  return { timescale, durations, offsets, firstDecode, ...shown, media: durations.reduce((a, b) => a + b, 0) };
}

const u8 = (n: number): Buffer => Buffer.from([n]);
const u16 = (n: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};
const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const i32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const u64 = (n: number): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
};
const zeros = (n: number): Buffer => Buffer.alloc(n);

function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  return Buffer.concat([boxHeader(body.length + 8, type), body]);
}
const fullBox = (type: string, version: number, flags: number, ...parts: Buffer[]): Buffer =>
  box(type, u32((version << 24) | flags), ...parts);

const MATRIX = Buffer.concat([0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000].map(u32));

function runs(values: number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const v of values) {
    const last = out[out.length - 1];
    if (last && last[1] === v) last[0]++;
    else out.push([1, v]);
  }
  return out;
}

/** MPEG-4 descriptor: tag, the size as a one-to-four-byte expandable number, the payload. */
function descriptor(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const size: number[] = [];
  for (let n = body.length, first = true; first || n > 0; n >>= 7, first = false) size.unshift((n & 0x7f) | (first ? 0 : 0x80));
  return Buffer.concat([u8(tag), Buffer.from(size), body]);
}

type TrackOut = { track: Track; trackId: number; timing: Timing; frames: Frame[]; sizes: number[] };
/** A run of consecutive frames of one track in the file: one MP4 chunk. */
type Chunk = { trackId: number; offset: number; count: number };

function sampleEntry(out: TrackOut, bitrate: number): Buffer {
  const { track } = out;
  if (track.kind === "video") {
    return box(
      "avc1",
      zeros(6),
      u16(1),
      zeros(16),
      u16(track.width),
      u16(track.height),
      u32(0x00480000),
      u32(0x00480000),
      zeros(4),
      u16(1),
      zeros(32),
      u16(0x18),
      u16(0xffff),
      box("avcC", track.codecPrivate),
    );
  }
  const decoderConfig = descriptor(
    0x04,
    u8(0x40), // MPEG-4 audio
    u8(0x15), // audio stream
    u32(Math.max(...out.sizes)).subarray(1), // bufferSizeDB, 24 bits
    u32(bitrate),
    u32(bitrate),
    descriptor(0x05, track.codecPrivate),
  );
  const esds = fullBox("esds", 0, 0, descriptor(0x03, u16(out.trackId), u8(0), decoderConfig, descriptor(0x06, u8(0x02))));
  return box("mp4a", zeros(6), u16(1), zeros(8), u16(track.channels), u16(16), zeros(4), u32(track.sampleRate * 0x10000), esds);
}

const movieTime = (ticks: number, timescale: number): number => Math.round((ticks * MOVIE_TIMESCALE) / timescale);

/**
 * The edit list, as ffmpeg writes it: an empty edit for the time before the track's first
 * frame is shown (Matroska's time 0 stays presentation time 0, so tracks keep their sync),
 * then the media from that frame's composition time on.
 */
function edits(t: Timing): { boxes: Buffer; duration: number } {
  const entries: Buffer[] = [];
  let duration = 0;
  const entry = (segment: number, mediaTime: number) => {
    entries.push(Buffer.concat([u32(segment), i32(mediaTime), u16(1), u16(0)]));
    duration += segment;
  };
  if (t.start > 0) entry(movieTime(t.start, t.timescale), -1);
  entry(movieTime(t.end - t.start, t.timescale), t.start - t.firstDecode);
  return { boxes: box("edts", fullBox("elst", 0, 0, u32(entries.length), ...entries)), duration };
}

function trak(out: TrackOut, chunks: Chunk[], wide: boolean): { box: Buffer; duration: number } {
  const { track, timing: t, trackId } = out;
  const video = track.kind === "video";
  const { boxes: edts, duration } = edits(t);
  const seconds = t.media / t.timescale;
  const bytes = out.sizes.reduce((a, b) => a + b, 0);
  const bitrate = seconds > 0 ? Math.min(UINT32_MAX, Math.round((bytes * 8) / seconds)) : 0;

  const stts = runs(t.durations);
  const ctts = runs(t.offsets);
  const keys = out.frames.flatMap((f, i) => (f.key ? [i + 1] : []));
  const mine = chunks.filter((c) => c.trackId === trackId);
  const stsc: [number, number][] = [];
  mine.forEach((c, i) => {
    if (stsc[stsc.length - 1]?.[1] !== c.count) stsc.push([i + 1, c.count]);
  });
  const stbl = box(
    "stbl",
    fullBox("stsd", 0, 0, u32(1), sampleEntry(out, bitrate)),
    fullBox("stts", 0, 0, u32(stts.length), ...stts.flatMap(([n, d]) => [u32(n), u32(d)])),
    ...(ctts.some(([, o]) => o !== 0) ? [fullBox("ctts", 0, 0, u32(ctts.length), ...ctts.flatMap(([n, o]) => [u32(n), u32(o)]))] : []),
    ...(video && keys.length < out.frames.length ? [fullBox("stss", 0, 0, u32(keys.length), ...keys.map(u32))] : []),
    fullBox("stsc", 0, 0, u32(stsc.length), ...stsc.flatMap(([first, n]) => [u32(first), u32(n), u32(1)])),
    fullBox("stsz", 0, 0, u32(0), u32(out.sizes.length), ...out.sizes.map(u32)),
    wide
      ? fullBox("co64", 0, 0, u32(mine.length), ...mine.map((c) => u64(c.offset)))
      : fullBox("stco", 0, 0, u32(mine.length), ...mine.map((c) => u32(c.offset))),
  );
  const handler = video ? "vide" : "soun";
  const mdia = box(
    "mdia",
    fullBox("mdhd", 0, 0, zeros(8), u32(t.timescale), u32(t.media), u16(0x55c4), u16(0)),
    fullBox(
      "hdlr",
      0,
      0,
      zeros(4),
      Buffer.from(handler, "latin1"),
      zeros(12),
      Buffer.from(video ? "VideoHandler\0" : "SoundHandler\0", "latin1"),
    ),
    box(
      "minf",
      video ? fullBox("vmhd", 0, 1, zeros(8)) : fullBox("smhd", 0, 0, zeros(4)),
      box("dinf", fullBox("dref", 0, 0, u32(1), fullBox("url ", 0, 1))),
      stbl,
    ),
  );
  const tkhd = fullBox(
    "tkhd",
    0,
    3,
    zeros(8),
    u32(trackId),
    zeros(4),
    u32(duration),
    zeros(8),
    u16(0),
    u16(0),
    u16(video ? 0 : 0x0100),
    zeros(2),
    MATRIX,
    u32(track.width * 0x10000),
    u32(track.height * 0x10000),
  );
  return { box: box("trak", tkhd, edts, mdia), duration };
}

function moov(tracks: TrackOut[], chunks: Chunk[], wide: boolean): Buffer {
  const traks = tracks.map((t) => trak(t, chunks, wide));
  const duration = Math.max(...traks.map((t) => t.duration));
  const mvhd = fullBox(
    "mvhd",
    0,
    0,
    zeros(8),
    u32(MOVIE_TIMESCALE),
    u32(duration),
    u32(0x10000),
    u16(0x0100),
    zeros(10),
    MATRIX,
    zeros(24),
    u32(tracks.length + 1),
  );
  return box("moov", mvhd, ...traks.map((t) => t.box));
}

/** Chunks in file order, their offsets counted from the first frame byte (`base` added later). */
function chunksOf(frames: Frame[], trackIds: Map<number, number>, base: number): Chunk[] {
  const out: Chunk[] = [];
  let offset = base;
  for (const frame of frames) {
    const trackId = trackIds.get(frame.track)!;
    const last = out[out.length - 1];
    if (last && last.trackId === trackId) last.count++;
    else out.push({ trackId, offset, count: 1 });
    offset += frame.size;
  }
  return out;
}

/** The output's head (ftyp, moov, the mdat header) and the frames that follow it, in order. */
type Planned = { head: Buffer; frames: Frame[] };

function plan(layout: Layout): Planned {
  const { video, audio, frames } = layout;
  const order = audio ? [video, audio] : [video];
  const trackIds = new Map(order.map((t, i) => [t.number, i + 1]));
  const tracks: TrackOut[] = order.map((track, i) => {
    const own = frames.filter((f) => f.track === track.number);
    return {
      track,
      trackId: i + 1,
      frames: own,
      sizes: own.map((f) => f.size),
      timing: track.kind === "video" ? videoTiming(own, track) : audioTiming(own, track),
    };
  });
  const payload = frames.reduce((sum, f) => sum + f.size, 0);
  // Decided once, from a generous bound, so the head's size does not change with the offsets.
  const wide = MP4_FTYP.length + payload + 16 + 64 * frames.length + 1024 * 1024 > UINT32_MAX;
  const mdatHeader = payload + 8 > UINT32_MAX ? boxHeader(payload + 16, "mdat", true) : boxHeader(payload + 8, "mdat");
  const headSize = MP4_FTYP.length + moov(tracks, chunksOf(frames, trackIds, 0), wide).length + mdatHeader.length;
  const head = Buffer.concat([MP4_FTYP, moov(tracks, chunksOf(frames, trackIds, headSize), wide), mdatHeader]);
  need(head.length === headSize, "head size changed");
  return { head, frames };
}

async function writeFrames(reader: Reader, output: string, { head, frames }: Planned): Promise<void> {
  const out = await open(output, "wx");
  try {
    await out.write(head, 0, head.length, 0);
    let written = head.length;
    const pending = Buffer.allocUnsafe(WRITE_CHUNK);
    let filled = 0;
    const flush = async () => {
      await out.write(pending, 0, filled, written);
      written += filled;
      filled = 0;
    };
    for (const frame of frames) {
      const bytes = await reader.bytes(frame.pos, frame.size);
      if (bytes.length !== frame.size) throw new Error("the input shrank while it was being rewritten");
      if (filled + bytes.length > pending.length) await flush();
      if (bytes.length > pending.length) {
        await out.write(bytes, 0, bytes.length, written);
        written += bytes.length;
      } else {
        bytes.copy(pending, filled);
        filled += bytes.length;
      }
    }
    await flush();
  } catch (error) {
    await out.close();
    await rm(output, { force: true });
    throw error;
  }
  await out.close();
}
