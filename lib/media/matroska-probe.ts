/**
 * What ffprobe would say about an MKV or WebM, read from the elements before the first
 * `Cluster` and those its `SeekHead` points to, never a frame. Null whenever they do not say
 * everything with certainty, and ffprobe answers (docs/media.md, "Probing MKV and WebM without
 * ffprobe"). It accepts DocType `matroska` and `webm` alike: which is an upload type is the sniffer's call.
 */
import { open, type FileHandle } from "node:fs/promises";
import { ascii, children, crcHolds, type Element, float, headerIn, one, uint } from "./ebml";
import { h264PixFmt, hevcPixFmt, need, Unreadable } from "./mp4-probe";
import type { ProbeResult, ProbeStream } from "./probe";

/** ffprobe's format_name for the matroska demuxer (the one we force for MKV and WebM). */
export const MATROSKA_FORMAT_NAME = "matroska,webm";
/** ffprobe's codec_tag_string for every Matroska track of the codecs below (they have no FourCC). */
const NO_TAG = "[0][0][0][0]";
/** The head read in one go: the EBML header, SeekHead, Info and Tracks of a usual file fit. */
const HEAD_BYTES = 64 * 1024;
/** A master element we load (Info, Tracks, Tags, SeekHead) bigger than this is left to ffprobe. */
const MAX_ELEMENT_BYTES = 16 * 1024 * 1024;
/** Top-level elements looked at before the first Cluster; a real file has fewer than ten. */
const MAX_TOP_LEVEL = 256;
/** SeekHeads followed (one in front, at most a few chained). */
const MAX_SEEKHEADS = 4;

const ID = {
  EBML: 0x1a45dfa3,
  EBMLReadVersion: 0x42f7,
  EBMLMaxIDLength: 0x42f2,
  EBMLMaxSizeLength: 0x42f3,
  DocType: 0x4282,
  DocTypeReadVersion: 0x4285,
  Segment: 0x18538067,
  SeekHead: 0x114d9b74,
  Seek: 0x4dbb,
  SeekID: 0x53ab,
  SeekPosition: 0x53ac,
  Info: 0x1549a966,
  TimestampScale: 0x2ad7b1,
  Duration: 0x4489,
  Tracks: 0x1654ae6b,
  TrackEntry: 0xae,
  TrackNumber: 0xd7,
  TrackType: 0x83,
  FlagEnabled: 0xb9,
  CodecID: 0x86,
  CodecPrivate: 0x63a2,
  ContentEncodings: 0x6d80,
  TrackOperation: 0xe2,
  Video: 0xe0,
  PixelWidth: 0xb0,
  PixelHeight: 0xba,
  PixelCropBottom: 0x54aa,
  PixelCropTop: 0x54bb,
  PixelCropLeft: 0x54cc,
  PixelCropRight: 0x54dd,
  Projection: 0x7670,
  Cluster: 0x1f43b675,
  Tags: 0x1254c367,
  SimpleTag: 0x67c8,
  TagName: 0x45a3,
  Attachments: 0x1941a469,
} as const;

/** Masters read through the SeekHead when they were not met before the first Cluster. */
const SOUGHT: ReadonlySet<number> = new Set([ID.Info, ID.Tracks, ID.Tags, ID.Attachments, ID.SeekHead]);

/** Matroska CodecID → ffmpeg's codec_name, each checked against ffprobe in tests/media/matroska-probe.test.ts. */
const CODECS: Readonly<Record<string, { type: "video" | "audio" | "subtitle"; name: string }>> = {
  "V_MPEG4/ISO/AVC": { type: "video", name: "h264" },
  "V_MPEGH/ISO/HEVC": { type: "video", name: "hevc" },
  V_VP8: { type: "video", name: "vp8" },
  V_VP9: { type: "video", name: "vp9" },
  V_AV1: { type: "video", name: "av1" },
  "V_MPEG4/ISO/ASP": { type: "video", name: "mpeg4" },
  V_MPEG2: { type: "video", name: "mpeg2video" },
  A_AAC: { type: "audio", name: "aac" },
  "A_MPEG/L3": { type: "audio", name: "mp3" },
  "A_MPEG/L2": { type: "audio", name: "mp2" },
  A_OPUS: { type: "audio", name: "opus" },
  A_VORBIS: { type: "audio", name: "vorbis" },
  A_FLAC: { type: "audio", name: "flac" },
  A_AC3: { type: "audio", name: "ac3" },
  "S_TEXT/UTF8": { type: "subtitle", name: "subrip" },
};
/** TrackType values ffmpeg turns into streams of that kind. */
const TRACK_TYPES: Readonly<Record<number, "video" | "audio" | "subtitle">> = { 1: "video", 2: "audio", 17: "subtitle" };

export async function probeMatroska(path: string): Promise<ProbeResult | null> {
  // A file that cannot even be opened is ffprobe's to report, with the error it always gave.
  const file = await open(path, "r").catch(() => null);
  if (!file) return null;
  try {
    const { size } = await file.stat();
    const head = Buffer.alloc(Math.min(size, HEAD_BYTES));
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    return await readFile(new Source(file, size, head.subarray(0, bytesRead)));
  } catch (error) {
    if (error instanceof Unreadable || error instanceof RangeError) return null;
    throw error;
  } finally {
    await file.close();
  }
}

/** The file: its head in memory, anything further read on demand. */
class Source {
  constructor(
    private readonly file: FileHandle,
    readonly size: number,
    private readonly head: Buffer,
  ) {}

  async bytes(at: number, length: number): Promise<Buffer> {
    const end = Math.min(at + length, this.size);
    if (end <= this.head.length) return this.head.subarray(at, end);
    const buf = Buffer.alloc(Math.max(0, end - at));
    const { bytesRead } = await this.file.read(buf, 0, buf.length, at);
    return buf.subarray(0, bytesRead);
  }

  async header(at: number): Promise<Element> {
    const [element] = headerIn(await this.bytes(at, 12), 0, at);
    return element;
  }

  /** The data of a known-size element, whole, its CRC-32 checked when it has one. */
  async data(el: Element): Promise<Buffer> {
    need(el.size !== null && el.size <= MAX_ELEMENT_BYTES, "element too large to load");
    const buf = await this.bytes(el.dataStart, el.size!);
    need(buf.length === el.size, "element ends past the end of the file");
    need(crcHolds(buf), "CRC-32 mismatch");
    return buf;
  }
}

type Found = { info?: Buffer; tracks?: Buffer; tags: Buffer[]; attachments: boolean };

async function readFile(src: Source): Promise<ProbeResult> {
  const ebml = await src.header(0);
  need(ebml.id === ID.EBML, "not EBML");
  readEbmlHeader(await src.data(ebml));
  const segment = await src.header(ebml.dataStart + ebml.size!);
  need(segment.id === ID.Segment, "no Segment after the EBML header");
  // A Segment that claims more bytes than the file has is a truncated upload.
  const segmentEnd = segment.size === null ? src.size : segment.dataStart + segment.size;
  need(segmentEnd <= src.size, "truncated");
  const found: Found = { tags: [], attachments: false };
  const seekHeads: Buffer[] = [];
  const seen = new Set<number>();
  const take = async (el: Element): Promise<void> => {
    seen.add(el.start);
    if (el.id === ID.Info) {
      need(found.info === undefined, "two Info elements");
      found.info = await src.data(el);
    } else if (el.id === ID.Tracks) {
      need(found.tracks === undefined, "two Tracks elements");
      found.tracks = await src.data(el);
    } else if (el.id === ID.Tags) found.tags.push(await src.data(el));
    else if (el.id === ID.Attachments) found.attachments = true;
    else if (el.id === ID.SeekHead) seekHeads.push(await src.data(el));
  };

  // The Segment's children up to the first Cluster: clusters may have unknown sizes (live
  // recordings) and nothing we read lives in them.
  let at = segment.dataStart;
  let cluster = false;
  for (let n = 0; at < segmentEnd && !cluster; n++) {
    need(n < MAX_TOP_LEVEL, "too many elements before the first Cluster");
    const el = await src.header(at);
    if (el.id === ID.Cluster) cluster = true;
    else {
      need(el.size !== null && el.dataStart + el.size <= segmentEnd, "top-level element overruns the Segment");
      await take(el);
      at = el.dataStart + el.size!;
    }
  }
  need(cluster, "no Cluster");

  // What the SeekHead points to past the first Cluster (Tags and Cues written at the end, a second SeekHead).
  for (let i = 0; i < seekHeads.length; i++) {
    need(i < MAX_SEEKHEADS, "too many SeekHeads");
    for (const target of seekEntries(seekHeads[i])) {
      if (!SOUGHT.has(target.id)) continue;
      const position = segment.dataStart + target.position;
      if (seen.has(position)) continue;
      need(position < segmentEnd, "SeekHead points past the Segment");
      const el = await src.header(position);
      need(el.id === target.id && el.size !== null, "SeekHead entry does not point at its element");
      await take(el);
    }
  }
  need(!found.attachments, "attachments");
  need(!found.tags.some(hasRotateTag), "rotate tag");
  need(found.info !== undefined && found.tracks !== undefined, "no Info or no Tracks");
  const duration = readInfo(found.info!);
  const streams = children(found.tracks!)
    .filter((k) => k.id === ID.TrackEntry)
    .map((k, index) => readTrack(k.data, index));
  need(streams.length > 0, "no tracks");
  return { formatName: MATROSKA_FORMAT_NAME, duration, size: src.size, tags: {}, streams };
}

/** The limits ffmpeg 5.1's demuxer checks; a file past them fails there (ffprobe reports it). */
function readEbmlHeader(data: Buffer): void {
  const kids = children(data);
  const value = (id: number, fallback: number) => {
    const d = one(kids, id);
    return d === undefined ? fallback : uint(d);
  };
  need(value(ID.EBMLReadVersion, 1) === 1, "EBMLReadVersion");
  need(value(ID.EBMLMaxIDLength, 4) <= 4 && value(ID.EBMLMaxSizeLength, 8) <= 8, "EBML lengths");
  // ffmpeg checks the read version only (files of DocTypeVersion 4 with read version 2 are common).
  need(value(ID.DocTypeReadVersion, 1) <= 3, "DocTypeReadVersion");
  const docType = one(kids, ID.DocType);
  need(docType !== undefined && ["matroska", "webm"].includes(ascii(docType)), "DocType");
}

function seekEntries(data: Buffer): { id: number; position: number }[] {
  return children(data)
    .filter((k) => k.id === ID.Seek)
    .map((seek) => {
      const kids = children(seek.data);
      const id = one(kids, ID.SeekID);
      const position = one(kids, ID.SeekPosition);
      need(id !== undefined && position !== undefined && id.length <= 4, "Seek entry");
      return { id: uint(id!), position: uint(position!) };
    });
}

/** Whether any SimpleTag (at any depth) is named `rotate`: ffprobe reads such a tag as the rotation. */
function hasRotateTag(data: Buffer, depth = 0): boolean {
  need(depth < 8, "tags nested too deep");
  return children(data).some((k) => {
    if (k.id === ID.TagName) return ascii(k.data).toLowerCase() === "rotate";
    // Tag (0x7373) and SimpleTag hold SimpleTags; other children are leaves.
    return (k.id === 0x7373 || k.id === ID.SimpleTag) && hasRotateTag(k.data, depth + 1);
  });
}

/**
 * Seconds, as ffmpeg computes them: Duration (in TimestampScale units, default 1 ms) to whole
 * microseconds, truncated, printed by ffprobe with 6 decimals.
 */
function readInfo(data: Buffer): number {
  const kids = children(data);
  const scaleData = one(kids, ID.TimestampScale);
  const scale = scaleData === undefined ? 1_000_000 : uint(scaleData);
  const durationData = one(kids, ID.Duration);
  need(scale > 0 && durationData !== undefined, "no Duration");
  const micros = Math.trunc((float(durationData!) * scale) / 1000);
  need(Number.isFinite(micros) && micros > 0, "no Duration");
  return micros / 1e6;
}

function readTrack(data: Buffer, index: number): ProbeStream {
  const kids = children(data);
  const number = one(kids, ID.TrackNumber);
  const typeData = one(kids, ID.TrackType);
  const codecData = one(kids, ID.CodecID);
  need(number !== undefined && uint(number) > 0 && typeData !== undefined && codecData !== undefined, "incomplete TrackEntry");
  const enabled = one(kids, ID.FlagEnabled);
  need(enabled === undefined || uint(enabled) === 1, "disabled track");
  need(one(kids, ID.ContentEncodings) === undefined && one(kids, ID.TrackOperation) === undefined, "content encodings");
  const type = TRACK_TYPES[uint(typeData!)];
  const codec = CODECS[ascii(codecData!)];
  need(type !== undefined && codec?.type === type, `track of type ${uint(typeData!)}, codec ${ascii(codecData!)}`);
  const base = { index, codecType: type, codecName: codec.name, codecTag: NO_TAG, rotation: 0, attachedPic: false, tags: {} };
  if (type !== "video") return base;
  return { ...base, ...readVideo(kids, codec.name) };
}

function readVideo(track: { id: number; data: Buffer }[], codecName: string): Pick<ProbeStream, "width" | "height" | "pixFmt"> {
  const video = one(track, ID.Video);
  need(video !== undefined, "video track without Video");
  const kids = children(video!);
  const width = uint(one(kids, ID.PixelWidth) ?? Buffer.alloc(0));
  const height = uint(one(kids, ID.PixelHeight) ?? Buffer.alloc(0));
  need(width > 0 && height > 0, "no picture size");
  for (const crop of [ID.PixelCropBottom, ID.PixelCropTop, ID.PixelCropLeft, ID.PixelCropRight]) {
    const d = one(kids, crop);
    need(d === undefined || uint(d) === 0, "pixel cropping");
  }
  need(one(kids, ID.Projection) === undefined, "projection (rotation or 360°)");
  const codecPrivate = one(track, ID.CodecPrivate);
  let pixFmt: string | undefined;
  if (codecName === "h264") {
    // CodecPrivate is the avcC (AVCDecoderConfigurationRecord, version 1), as in MP4.
    need(codecPrivate !== undefined && codecPrivate[0] === 1, "no avcC");
    pixFmt = h264PixFmt(codecPrivate!);
  } else if (codecName === "hevc") {
    need(codecPrivate !== undefined && codecPrivate[0] === 1, "no hvcC");
    pixFmt = hevcPixFmt(codecPrivate!);
  }
  return { width, height, pixFmt };
}
