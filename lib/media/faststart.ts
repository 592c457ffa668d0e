/**
 * Fast start without a remux for an MP4 whose tracks would only be copied (docs/media.md,
 * "Videos"): ffmpeg's +faststart writes a 1 GB upload twice; here the media never moves through
 * this process (`fallocate --insert-range` opens a gap in front, else one sequential copy).
 * Metadata boxes become zero-filled `free` boxes of the same size, so no offset moves. Anything
 * unusual returns false before a byte is written, and the caller remuxes with ffmpeg.
 */
import { execFile } from "node:child_process";
import { constants as fsConstants } from "node:fs";
import { copyFile, open, rename, rm, type FileHandle } from "node:fs/promises";
import { boxHeader, childBoxes, endOf, findChild, payloadOf, readBox, topLevelBoxes, type Box, unlessMalformed } from "./mp4-boxes";

export type FastStartOptions = {
  keepMetadata: boolean;
  /** The file has (and must have) exactly one audio track next to its video track. */
  withAudio: boolean;
  consumeInput: boolean;
  /** Try `fallocate --insert-range` before copying (tests turn it off to cover the copy). */
  insertRange?: boolean;
};

/** Sample entries that go into the output unchanged (hev1 needs the hvc1 retag ffmpeg does). */
const VIDEO_ENTRIES: ReadonlySet<string> = new Set(["avc1", "hvc1", "av01", "vp09"]);
const AUDIO_ENTRIES: ReadonlySet<string> = new Set(["mp4a", ".mp3"]);
/** Top-level boxes we know how to carry; anything else (moof, sidx, mfra...) → ffmpeg. */
const KEPT_TOP: ReadonlySet<string> = new Set(["ftyp", "moov", "mdat", "free", "skip", "wide"]);
const METADATA: ReadonlySet<string> = new Set(["udta", "meta", "uuid"]);
/** A moov bigger than this (hours of tiny samples) is left to ffmpeg rather than held in memory. */
export const MAX_MOOV_BYTES = 64 * 1024 * 1024;
const COPY_CHUNK = 1024 * 1024;
const UINT32_LIMIT = 2 ** 32;

export type ChunkTable = { box: Box; wide: boolean };

export type MoovPlan = {
  /** Boxes (positions inside the moov buffer) to turn into zero-filled `free`. */
  strip: Box[];
  /** mvhd/tkhd/mdhd boxes whose times are zeroed. */
  timed: Box[];
  chunkTables: ChunkTable[];
};

/** Resolves false, with nothing written, when the file is not the simple case. */
export async function fastStart(input: string, output: string, opts: FastStartOptions): Promise<boolean> {
  const file = await open(input, opts.consumeInput ? "r+" : "r");
  try {
    const layout = await unlessMalformed(readLayout(file, opts));
    if (!layout) return false;
    const { top, ftyp, ftypBuf, moov, moovBuf, plan, blockSize, fileSize } = layout;
    applyMetadataEdits(moovBuf, plan, opts.keepMetadata);
    const topStrips = opts.keepMetadata ? [] : top.filter((b) => METADATA.has(b.type));

    if (moov.start < firstMdat(top).start) {
      // Already fast start: edit the moov where it is, nothing moves.
      const work = opts.consumeInput ? file : await copyThenOpen(input, output);
      try {
        await work.write(moovBuf, 0, moovBuf.length, moov.start);
        for (const b of topStrips) await zeroBox(work, b.start, b);
      } finally {
        if (work !== file) await work.close();
      }
      if (opts.consumeInput) await moveWhenClosed(file, input, output);
      return true;
    }

    const gap = roundUp(moov.size + 8, blockSize);
    if (opts.consumeInput && opts.insertRange !== false && fitsOffsets(moovBuf, plan, gap) && (await insertGapAtStart(input, gap))) {
      // The file now starts with `gap` zero bytes; everything else sits `gap` further on.
      shiftChunkOffsets(moovBuf, plan, gap);
      const freeHead = boxHeader(gap - moov.size, "free"); // the rest of the gap and the old ftyp
      const head = Buffer.concat([ftypBuf, moovBuf, freeHead]);
      await file.write(head, 0, head.length, 0);
      for (const b of topStrips) await zeroBox(file, b.start + gap, b);
      if (endOf(moov) === fileSize) await file.truncate(gap + moov.start);
      else await zeroBox(file, moov.start + gap, moov);
      await moveWhenClosed(file, input, output);
      return true;
    }

    // What stood before the moov moves by its size: in place when the input is ours (the media
    // shifted within the file, last block first, into the room the old moov leaves), else one
    // sequential copy: ftyp, moov, then the rest in order.
    if (!fitsOffsets(moovBuf, plan, moov.size)) return false;
    shiftChunkOffsets(moovBuf, plan, moov.size);
    if (opts.consumeInput && ftyp.start === 0) {
      await shiftUp(file, endOf(ftyp), moov.start, moov.size);
      await file.write(moovBuf, 0, moovBuf.length, endOf(ftyp));
      for (const b of topStrips) await zeroBox(file, b.start < moov.start ? b.start + moov.size : b.start, b);
      await moveWhenClosed(file, input, output);
      return true;
    }
    await copyWithMoovFirst(file, output, ftyp, ftypBuf, moov, moovBuf, fileSize, topStrips);
    if (opts.consumeInput) {
      await file.close();
      await rm(input, { force: true });
    }
    return true;
  } finally {
    await file.close().catch(() => undefined);
  }
}

async function copyThenOpen(input: string, output: string): Promise<FileHandle> {
  await copyFile(input, output, fsConstants.COPYFILE_EXCL);
  return open(output, "r+");
}

async function moveWhenClosed(file: FileHandle, input: string, output: string): Promise<void> {
  await file.close();
  await rename(input, output);
}

type Layout = {
  top: Box[];
  ftyp: Box;
  ftypBuf: Buffer;
  moov: Box;
  moovBuf: Buffer;
  plan: MoovPlan;
  blockSize: number;
  fileSize: number;
};

async function readLayout(file: FileHandle, opts: FastStartOptions): Promise<Layout | null> {
  const stats = await file.stat();
  const top = await topLevelBoxes(file, stats.size);
  const [ftyp] = top;
  if (ftyp?.type !== "ftyp" || ftyp.size > 4096) return null;
  if (top.some((b) => !KEPT_TOP.has(b.type) && !METADATA.has(b.type))) return null;
  // Metadata boxes are zeroed in place: keep that bounded (and their sizes 32-bit).
  if (top.some((b) => METADATA.has(b.type) && b.size > MAX_MOOV_BYTES)) return null;
  const moovs = top.filter((b) => b.type === "moov");
  const mdats = top.filter((b) => b.type === "mdat");
  if (moovs.length !== 1 || mdats.length === 0) return null;
  const moov = moovs[0];
  // Between two mdats the offsets would move by different amounts: leave that to ffmpeg.
  const before = mdats.filter((m) => m.start < moov.start).length;
  if (before !== 0 && before !== mdats.length) return null;
  if (moov.size > MAX_MOOV_BYTES || moov.header !== 8) return null;
  const moovBuf = await readBox(file, moov);
  const plan = planMoov(moovBuf, opts);
  if (!plan) return null;
  return {
    top,
    ftyp,
    ftypBuf: await readBox(file, ftyp),
    moov,
    moovBuf,
    plan,
    blockSize: Math.max(512, stats.blksize || 4096),
    fileSize: stats.size,
  };
}

/** Finds what to edit in the moov (positions relative to the moov buffer), or null when it is not the simple case. */
export function planMoov(buf: Buffer, opts: Pick<FastStartOptions, "withAudio">): MoovPlan | null {
  const moov: Box = { type: "moov", start: 0, size: buf.length, header: 8 };
  const plan: MoovPlan = { strip: [], timed: [], chunkTables: [] };
  const handlers: string[] = [];
  for (const child of childBoxes(buf, payloadOf(moov), endOf(moov))) {
    if (child.type === "mvhd") plan.timed.push(child);
    else if (child.type === "mvex")
      return null; // fragmented
    else if (METADATA.has(child.type)) plan.strip.push(child);
    else if (child.type === "trak") {
      const handler = planTrak(buf, child, plan);
      if (!handler) return null;
      handlers.push(handler);
    }
  }
  const videos = handlers.filter((h) => h === "vide").length;
  const audios = handlers.filter((h) => h === "soun").length;
  if (videos !== 1 || audios !== (opts.withAudio ? 1 : 0) || handlers.length !== videos + audios) return null;
  if (!plan.timed.some((b) => b.type === "mvhd")) return null;
  return plan;
}

/** Adds one track's edits to `plan`; returns its handler type when its sample entry is one we carry. */
function planTrak(buf: Buffer, trak: Box, plan: MoovPlan): "vide" | "soun" | null {
  let handler: string | undefined;
  let entry: string | undefined;
  let tables = 0;
  for (const child of childBoxes(buf, payloadOf(trak), endOf(trak))) {
    if (child.type === "tkhd") plan.timed.push(child);
    else if (METADATA.has(child.type)) plan.strip.push(child);
    else if (child.type === "mdia") {
      for (const m of childBoxes(buf, payloadOf(child), endOf(child))) {
        if (m.type === "mdhd") plan.timed.push(m);
        else if (m.type === "hdlr" && m.size >= m.header + 12) handler = buf.toString("latin1", payloadOf(m) + 8, payloadOf(m) + 12);
        else if (METADATA.has(m.type)) plan.strip.push(m);
        else if (m.type === "minf") {
          const stbl = findChild(buf, m, "stbl");
          if (!stbl) return null;
          for (const s of childBoxes(buf, payloadOf(stbl), endOf(stbl))) {
            if (s.type === "stsd") {
              // FullBox (4) + entry_count (4), then the first sample entry's header.
              const entries = childBoxes(buf, payloadOf(s) + 8, endOf(s));
              if (entries.length !== 1) return null;
              entry = entries[0].type;
            } else if (s.type === "stco" || s.type === "co64") {
              const wide = s.type === "co64";
              const count = s.size >= s.header + 8 ? buf.readUInt32BE(payloadOf(s) + 4) : -1;
              if (count < 0 || s.header + 8 + count * (wide ? 8 : 4) > s.size) return null;
              plan.chunkTables.push({ box: s, wide });
              tables += 1;
            } else if (s.type === "saio") return null; // absolute offsets of encryption data
          }
        }
      }
    }
  }
  if (tables !== 1 || !entry) return null;
  if (handler === "vide" && VIDEO_ENTRIES.has(entry)) return "vide";
  if (handler === "soun" && AUDIO_ENTRIES.has(entry)) return "soun";
  return null;
}

export function applyMetadataEdits(buf: Buffer, plan: MoovPlan, keepMetadata: boolean): void {
  if (keepMetadata) return;
  for (const box of plan.timed) {
    // FullBox: version (1) + flags (3), then creation and modification time (4 or 8 bytes each).
    const at = payloadOf(box);
    const width = buf[at] === 1 ? 8 : 4;
    buf.fill(0, at + 4, Math.min(endOf(box), at + 4 + 2 * width));
  }
  for (const box of plan.strip) {
    buf.fill(0, box.start, endOf(box));
    boxHeader(box.size, "free").copy(buf, box.start);
  }
}

/** True when every chunk offset in a 32-bit table still fits after moving by `shift`. */
export function fitsOffsets(buf: Buffer, plan: MoovPlan, shift: number): boolean {
  for (const { box, wide } of plan.chunkTables) {
    if (wide) continue;
    const count = buf.readUInt32BE(payloadOf(box) + 4);
    const first = payloadOf(box) + 8;
    for (let i = 0; i < count; i++) if (buf.readUInt32BE(first + i * 4) + shift >= UINT32_LIMIT) return false;
  }
  return true;
}

export function shiftChunkOffsets(buf: Buffer, plan: MoovPlan, shift: number): void {
  for (const { box, wide } of plan.chunkTables) {
    const count = buf.readUInt32BE(payloadOf(box) + 4);
    const first = payloadOf(box) + 8;
    for (let i = 0; i < count; i++) {
      if (wide) buf.writeBigUInt64BE(buf.readBigUInt64BE(first + i * 8) + BigInt(shift), first + i * 8);
      else buf.writeUInt32BE(buf.readUInt32BE(first + i * 4) + shift, first + i * 4);
    }
  }
}

/**
 * Moves the bytes [from, to) of `file` `by` bytes further on, last block first (the two
 * ranges overlap): fast start with no second copy of the file where the filesystem cannot
 * insert a range, so an upload needs no more than its own length of disk (issue 42 §4).
 */
async function shiftUp(file: FileHandle, from: number, to: number, by: number): Promise<void> {
  const chunk = Buffer.allocUnsafe(COPY_CHUNK);
  for (let end = to; end > from; ) {
    const start = Math.max(from, end - COPY_CHUNK);
    const length = end - start;
    for (let got = 0; got < length; ) {
      const { bytesRead } = await file.read(chunk, got, length - got, start + got);
      if (bytesRead === 0) throw new Error("the upload shrank while it was being moved");
      got += bytesRead;
    }
    await file.write(chunk, 0, length, start + by);
    end = start;
  }
}

async function copyWithMoovFirst(
  file: FileHandle,
  output: string,
  ftyp: Box,
  ftypBuf: Buffer,
  moov: Box,
  moovBuf: Buffer,
  fileSize: number,
  strips: readonly Box[],
): Promise<void> {
  const out = await open(output, "wx");
  try {
    let at = 0;
    const put = async (data: Buffer, length = data.length) => {
      await out.write(data, 0, length, at);
      at += length;
    };
    await put(ftypBuf);
    await put(moovBuf);
    const chunk = Buffer.allocUnsafe(COPY_CHUNK);
    for (const [from, to] of [
      [endOf(ftyp), moov.start],
      [endOf(moov), fileSize],
    ] as const) {
      for (let pos = from; pos < to; ) {
        const { bytesRead } = await file.read(chunk, 0, Math.min(COPY_CHUNK, to - pos), pos);
        if (bytesRead === 0) throw new Error("the upload shrank while it was being copied");
        await put(chunk, bytesRead);
        pos += bytesRead;
      }
    }
    // Boxes before the moov now sit moov.size further on; those after it did not move.
    for (const b of strips) await zeroBox(out, b.start < moov.start ? b.start + moov.size : b.start, b);
  } catch (error) {
    await out.close();
    await rm(output, { force: true });
    throw error;
  }
  await out.close();
}

/** `fallocate --insert-range`: a zero-filled gap of `length` bytes at the start. False when unsupported here. */
export function insertGapAtStart(path: string, length: number): Promise<boolean> {
  return new Promise((resolve) => {
    execFile("fallocate", ["--insert-range", "--offset", "0", "--length", String(length), "--", path], { timeout: 60_000 }, (error) =>
      resolve(!error),
    );
  });
}

async function zeroBox(file: FileHandle, at: number, box: Box): Promise<void> {
  const zeros = Buffer.alloc(Math.min(box.size, COPY_CHUNK));
  for (let done = 0; done < box.size; done += zeros.length) {
    await file.write(zeros, 0, Math.min(zeros.length, box.size - done), at + done);
  }
  // A 64-bit-size box keeps its 16-byte header shape.
  const head = boxHeader(box.size, "free", box.header === 16);
  await file.write(head, 0, head.length, at);
}

const firstMdat = (top: Box[]): Box => top.find((b) => b.type === "mdat") as Box;
const roundUp = (n: number, step: number): number => Math.ceil(n / step) * step;
