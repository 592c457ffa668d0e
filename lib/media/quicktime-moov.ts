/**
 * A QuickTime `moov` rewritten as the MP4 `moov` ffmpeg's mp4 muxer would write for the same
 * H.264 + AAC/MP3 tracks, without metadata; the sample tables are carried byte for byte. The
 * boxes that differ (`hdlr`, the sample entries, `mdhd`'s language) are rewritten below; any box
 * not listed makes the rewrite give up (null), and the caller remuxes with ffmpeg.
 */
import { boxHeader, childBoxes, endOf, payloadOf, type Box } from "./mp4-boxes";

/** ffmpeg's mp4 `ftyp`: major brand isom, minor version 0x200, compatible isom, iso2, avc1, mp41. */
export const MP4_FTYP: Buffer = Buffer.concat([boxHeader(32, "ftyp"), Buffer.from("isom\0\0\x02\0isomiso2avc1mp41", "latin1")]);

/** Names ffmpeg's mp4 muxer gives handlers when no handler_name tag is kept. */
const HANDLER_NAMES: Readonly<Record<string, string>> = { vide: "VideoHandler", soun: "SoundHandler" };
/** Audio sample entries carried: AAC or MP3 in `mp4a` (its `esds` says which), MP3 as `.mp3`. */
const AUDIO_ENTRIES: ReadonlySet<string> = new Set(["mp4a", ".mp3"]);
/** What a QuickTime `wave` box holds next to the `esds`: the format, its atom again, the terminator. */
const WAVE_CARRIED: ReadonlySet<string> = new Set(["frma", "mp4a", ".mp3", "\0\0\0\0"]);
/** `und` packed as three 5-bit letters (ISO 639-2/T in mdhd). */
const UND_LANGUAGE = 0x55c4;

/** A box the rewrite does not carry: the whole rewrite gives up. */
class NotCarried extends Error {}

/** What to do with a child box: copy it as it is, drop it, or rewrite it (knowing the `trak` it is in). */
type Rule = "keep" | "drop" | ((buf: Buffer, box: Box, trak: Box) => Buffer);
type Rules = Readonly<Record<string, Rule>>;

const DROPPED: Rules = { udta: "drop", meta: "drop", uuid: "drop", free: "drop", skip: "drop" };

const STBL: Rules = {
  ...DROPPED,
  stsd: (buf, box, trak) => mp4Stsd(buf, box, trak),
  stts: "keep",
  ctts: "keep",
  cslg: "keep",
  stss: "keep",
  sdtp: "keep",
  stsc: "keep",
  stsz: "keep",
  stz2: "keep",
  stco: "keep",
  co64: "keep",
  sgpd: "keep",
  sbgp: "keep",
};
const MINF: Rules = {
  ...DROPPED,
  vmhd: "keep",
  smhd: "keep",
  hdlr: "drop", // the data handler (`dhlr`/`alis`): QuickTime only
  dinf: (buf, box) => selfContainedDinf(buf, box),
  stbl: (buf, box, trak) => rebuild(buf, box, STBL, trak),
};
const MDIA: Rules = {
  ...DROPPED,
  mdhd: (buf, box) => mp4Mdhd(buf, box),
  hdlr: (buf, box) => mp4Handler(buf, box),
  minf: (buf, box, trak) => rebuild(buf, box, MINF, trak),
};
const TRAK: Rules = { ...DROPPED, tkhd: "keep", edts: "keep", mdia: (buf, box, trak) => rebuild(buf, box, MDIA, trak) };
const MOOV: Rules = { ...DROPPED, mvhd: "keep", trak: (buf, box) => rebuild(buf, box, TRAK, box) };

/** `buf` is a whole QuickTime moov box (8-byte header); the MP4 moov, or null when it holds anything not carried. */
export function quickTimeMoovToMp4(buf: Buffer): Buffer | null {
  try {
    return rebuild(buf, { type: "moov", start: 0, size: buf.length, header: 8 }, MOOV);
  } catch (error) {
    if (error instanceof NotCarried) return null;
    throw error;
  }
}

function rebuild(buf: Buffer, parent: Box, rules: Rules, trak: Box = parent): Buffer {
  const parts: Buffer[] = [];
  for (const child of childBoxes(buf, payloadOf(parent), endOf(parent))) {
    const rule = rules[child.type];
    if (rule === undefined) throw new NotCarried(`${child.type} in ${parent.type}`);
    if (rule === "drop") continue;
    parts.push(rule === "keep" ? buf.subarray(child.start, endOf(child)) : rule(buf, child, trak));
  }
  return boxOf(parent.type, parts);
}

/** A box of `type` around `parts` (its size fits 32 bits: a moov is at most 64 MiB). */
function boxOf(type: string, parts: readonly Buffer[]): Buffer {
  const size = 8 + parts.reduce((sum, p) => sum + p.length, 0);
  return Buffer.concat([boxHeader(size, type), ...parts], size);
}

/** MP4 `hdlr`: FullBox, pre_defined 0, handler type, 12 reserved bytes, then ffmpeg's name as a C string. */
function mp4Handler(buf: Buffer, box: Box): Buffer {
  const at = payloadOf(box);
  if (box.size < box.header + 12) throw new NotCarried("short hdlr");
  const handler = buf.toString("latin1", at + 8, at + 12);
  const name = HANDLER_NAMES[handler];
  if (!name) throw new NotCarried(`handler ${handler}`);
  const fields = Buffer.alloc(24);
  fields.write(handler, 8, "latin1");
  return boxOf("hdlr", [fields, Buffer.from(`${name}\0`, "latin1")]);
}

/** `mdhd` with a Macintosh language code (or none) replaced by `und`; the rest as it was. */
function mp4Mdhd(buf: Buffer, box: Box): Buffer {
  const out = Buffer.from(buf.subarray(box.start, endOf(box)));
  // FullBox, then creation and modification times, timescale, duration (v1: 8, 4, 8 bytes wide).
  const languageAt = box.header + (out[box.header] === 1 ? 32 : 20);
  if (languageAt + 2 > out.length) throw new NotCarried("short mdhd");
  if (!isIsoLanguage(out.readUInt16BE(languageAt))) out.writeUInt16BE(UND_LANGUAGE, languageAt);
  return out;
}

/** Three letters a–z packed 5 bits each; QuickTime's Macintosh codes are below 0x400. */
function isIsoLanguage(code: number): boolean {
  return [10, 5, 0].every((shift) => {
    const letter = (code >> shift) & 0x1f;
    return letter >= 1 && letter <= 26;
  });
}

/**
 * The media must be in this file: one data reference, flagged self-contained (QuickTime's
 * `alis` or MP4's `url `). Written as the MP4 form either way.
 */
function selfContainedDinf(buf: Buffer, dinf: Box): Buffer {
  const children = childBoxes(buf, payloadOf(dinf), endOf(dinf));
  const dref = children.length === 1 && children[0].type === "dref" ? children[0] : undefined;
  if (!dref || dref.size < dref.header + 8 || buf.readUInt32BE(payloadOf(dref) + 4) !== 1) throw new NotCarried("data references");
  const entries = childBoxes(buf, payloadOf(dref) + 8, endOf(dref));
  const entry = entries.length === 1 ? entries[0] : undefined;
  const selfContained = entry && (entry.type === "url " || entry.type === "alis") && entry.size >= entry.header + 4;
  if (!selfContained || (buf.readUInt32BE(payloadOf(entry)) & 1) !== 1) throw new NotCarried("media in another file");
  const url = Buffer.concat([boxHeader(12, "url "), Buffer.from([0, 0, 0, 1])]);
  return boxOf("dinf", [boxOf("dref", [Buffer.from([0, 0, 0, 0, 0, 0, 0, 1]), url])]);
}

function mp4Stsd(buf: Buffer, stsd: Box, trak: Box): Buffer {
  // FullBox (4) + entry_count (4), then the entries.
  const entries = childBoxes(buf, payloadOf(stsd) + 8, endOf(stsd));
  if (entries.length !== 1) throw new NotCarried("not one sample entry");
  const [entry] = entries;
  const converted =
    entry.type === "avc1" ? mp4VisualEntry(buf, entry) : AUDIO_ENTRIES.has(entry.type) ? mp4AudioEntry(buf, entry, trak) : undefined;
  if (!converted) throw new NotCarried(`sample entry ${entry.type}`);
  return boxOf("stsd", [buf.subarray(payloadOf(stsd), payloadOf(stsd) + 8), converted]);
}

/**
 * VisualSampleEntry: 8 bytes of SampleEntry, then 16 bytes QuickTime fills with version,
 * vendor and qualities (MP4: zero), ..., a 32-byte compressor name at 42 (MP4, from ffmpeg:
 * empty), and the child boxes (`avcC`, `pasp`, `colr`...) from 78, carried as they are.
 */
function mp4VisualEntry(buf: Buffer, entry: Box): Buffer {
  const out = Buffer.from(buf.subarray(entry.start, endOf(entry)));
  const at = entry.header;
  if (out.length < at + 78) throw new NotCarried("short visual sample entry");
  out.fill(0, at + 8, at + 24);
  out.fill(0, at + 42, at + 74);
  return out;
}

/**
 * QuickTime SoundDescription → MP4 AudioSampleEntry (version 0): 8 bytes of SampleEntry;
 * version, revision, vendor (MP4: 8 zero bytes); channel count; sample size (16); compression
 * id and packet size (0); sample rate as 16.16. Version 1 has 16 more bytes before the
 * children. An `mp4a` takes its `esds` out of `wave` (frma, mp4a, esds, terminator); a `.mp3`
 * has none and becomes an `mp4a` with the `esds` ffmpeg writes for MP3. `chan` is dropped.
 */
function mp4AudioEntry(buf: Buffer, entry: Box, trak: Box): Buffer {
  const at = payloadOf(entry);
  if (endOf(entry) < at + 28) throw new NotCarried("short sound description");
  const version = buf.readUInt16BE(at + 8);
  if (version > 1) throw new NotCarried(`sound description version ${version}`);
  const esds = audioEsds(buf, childBoxes(buf, at + 28 + (version === 1 ? 16 : 0), endOf(entry)));
  if ((esds !== undefined) !== (entry.type === "mp4a")) throw new NotCarried(`${entry.type} ${esds ? "with" : "without"} esds`);
  const fields = Buffer.alloc(28);
  buf.copy(fields, 6, at + 6, at + 8); // data_reference_index
  fields.writeUInt16BE(buf.readUInt16BE(at + 16), 16); // channel count
  fields.writeUInt16BE(16, 18);
  fields.writeUInt32BE(buf.readUInt16BE(at + 24) * 0x10000, 24); // whole hertz, as ffmpeg writes it
  return boxOf("mp4a", [fields, esds ? buf.subarray(esds.start, endOf(esds)) : mp3Esds(buf, trak)]);
}

/** The `esds` of a sound description, directly inside or inside `wave`; at most one. */
function audioEsds(buf: Buffer, children: readonly Box[]): Box | undefined {
  const found: Box[] = [];
  for (const child of children) {
    if (child.type === "esds") found.push(child);
    else if (child.type === "wave") {
      for (const w of childBoxes(buf, payloadOf(child), endOf(child))) {
        if (w.type === "esds") found.push(w);
        else if (!WAVE_CARRIED.has(w.type)) throw new NotCarried(`${w.type} in wave`);
      }
    } else if (child.type !== "chan") throw new NotCarried(`${child.type} in a sound description`);
  }
  if (found.length > 1) throw new NotCarried("several esds");
  return found[0];
}

/**
 * The `esds` ffmpeg's mp4 muxer writes for MP3 (ISO 14496-1 §7.2.6): an ES_Descriptor with
 * the track's ID, a DecoderConfigDescriptor (object type 0x6B, audio stream, no buffer size,
 * the average bit rate as maximum and average) and no decoder-specific info, then the
 * SLConfigDescriptor (predefined 2). Descriptor sizes in ffmpeg's four-byte form.
 */
function mp3Esds(buf: Buffer, trak: Box): Buffer {
  const bitRate = averageBitRate(buf, trak);
  const descriptor = (tag: number, body: Buffer): Buffer => Buffer.concat([Buffer.from([tag, 0x80, 0x80, 0x80, body.length]), body]);
  const decoderConfig = Buffer.alloc(13);
  decoderConfig[0] = 0x6b; // MPEG-1 audio (MP3)
  decoderConfig[1] = (0x05 << 2) | 1; // audio stream, upstream 0, reserved 1
  decoderConfig.writeUInt32BE(bitRate, 5);
  decoderConfig.writeUInt32BE(bitRate, 9);
  const es = Buffer.alloc(3);
  es.writeUInt16BE(trackId(buf, trak), 0);
  const body = descriptor(0x03, Buffer.concat([es, descriptor(0x04, decoderConfig), descriptor(0x06, Buffer.from([0x02]))]));
  return boxOf("esds", [Buffer.alloc(4), body]);
}

/** tkhd's track_ID: FullBox, then creation and modification times (4 or 8 bytes each). */
function trackId(buf: Buffer, trak: Box): number {
  const tkhd = childOf(buf, trak, "tkhd", 24);
  return buf.readUInt32BE(payloadOf(tkhd) + (buf[payloadOf(tkhd)] === 1 ? 20 : 12));
}

/** Bits per second over the track, as ffmpeg computes it: all sample bytes × 8 × timescale / duration. */
function averageBitRate(buf: Buffer, trak: Box): number {
  const mdia = childOf(buf, trak, "mdia", 0);
  const mdhd = childOf(buf, mdia, "mdhd", 24);
  const at = payloadOf(mdhd);
  const wide = buf[at] === 1;
  if (wide && mdhd.size < mdhd.header + 32) throw new NotCarried("short mdhd");
  const timescale = buf.readUInt32BE(at + (wide ? 20 : 12));
  const duration = wide ? Number(buf.readBigUInt64BE(at + 24)) : buf.readUInt32BE(at + 16);
  const stsz = childOf(buf, childOf(buf, childOf(buf, mdia, "minf", 0), "stbl", 0), "stsz", 12);
  const size = buf.readUInt32BE(payloadOf(stsz) + 4);
  const count = buf.readUInt32BE(payloadOf(stsz) + 8);
  let bytes = size * count;
  if (size === 0) {
    if (stsz.size < stsz.header + 12 + count * 4) throw new NotCarried("short stsz");
    bytes = 0;
    for (let i = 0; i < count; i++) bytes += buf.readUInt32BE(payloadOf(stsz) + 12 + i * 4);
  }
  if (duration === 0) return 0;
  return Math.min(0xffffffff, Math.floor((bytes * 8 * timescale) / duration));
}

function childOf(buf: Buffer, parent: Box, type: string, payload: number): Box {
  const child = childBoxes(buf, payloadOf(parent), endOf(parent)).find((b) => b.type === type);
  if (!child || child.size < child.header + payload) throw new NotCarried(`no ${type} in ${parent.type}`);
  return child;
}
