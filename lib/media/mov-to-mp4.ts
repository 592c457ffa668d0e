/**
 * MOV (H.264 + AAC/MP3) → fast-start MP4 without a remux: what faststart.ts does for an MP4,
 * with the moov rewritten in MP4 form (quicktime-moov.ts). Metadata always goes: keeping it
 * would mean translating QuickTime tags as ffmpeg does, so keepMetadata returns false, as does
 * anything unusual, before a byte is written; the caller then remuxes with ffmpeg.
 */
import { open, rename, rm, type FileHandle } from "node:fs/promises";
import {
  applyMetadataEdits,
  fitsOffsets,
  insertGapAtStart,
  MAX_MOOV_BYTES,
  planMoov,
  shiftChunkOffsets,
  type FastStartOptions,
  type MoovPlan,
} from "./faststart";
import { boxHeader, endOf, payloadOf, readBox, topLevelBoxes, type Box, unlessMalformed } from "./mp4-boxes";
import { MP4_FTYP, quickTimeMoovToMp4 } from "./quicktime-moov";

/** Top-level boxes other than ftyp, moov and mdat that may be left behind: padding. */
const PADDING: ReadonlySet<string> = new Set(["free", "skip", "wide"]);
const COPY_CHUNK = 1024 * 1024;

/** What the rewrite found: where the media is, and the head (ftyp + moov) that goes before it. */
type MovLayout = {
  mdat: Box;
  /** MP4 ftyp + MP4 moov, chunk offsets still those of the input. */
  head: Buffer;
  /** The moov inside `head` (from MP4_FTYP.length on) and its chunk tables. */
  moov: Buffer;
  plan: MoovPlan;
  blockSize: number;
  fileSize: number;
};

/** Resolves false, with nothing written, when the file is not the simple case. */
export async function movToMp4(input: string, output: string, opts: FastStartOptions): Promise<boolean> {
  if (opts.keepMetadata) return false;
  const file = await open(input, opts.consumeInput ? "r+" : "r");
  try {
    const layout = await unlessMalformed(readMovLayout(file, opts));
    if (!layout) return false;
    if (opts.consumeInput && (await rewriteInPlace(file, input, layout, opts.insertRange !== false))) {
      await file.close();
      await rename(input, output);
      return true;
    }
    // One sequential copy: the head, then the media; the media moves from mdat.start to head.length
    // (maybe back: every chunk starts inside the mdat, so no offset goes below 0).
    const shift = layout.head.length - layout.mdat.start;
    if (!fitsOffsets(layout.moov, layout.plan, shift)) return false;
    shiftChunkOffsets(layout.moov, layout.plan, shift);
    await copyAfterHead(file, output, layout);
    if (opts.consumeInput) {
      await file.close();
      await rm(input, { force: true });
    }
    return true;
  } finally {
    await file.close().catch(() => undefined);
  }
}

async function readMovLayout(file: FileHandle, opts: FastStartOptions): Promise<MovLayout | null> {
  const stats = await file.stat();
  const top = await topLevelBoxes(file, stats.size);
  const [ftyp] = top;
  if (ftyp?.type !== "ftyp" || ftyp.size < 12 || ftyp.size > 4096) return null;
  if ((await readBox(file, ftyp)).toString("latin1", 8, 12) !== "qt  ") return null;
  const moovs = top.filter((b) => b.type === "moov");
  const mdats = top.filter((b) => b.type === "mdat");
  if (moovs.length !== 1 || mdats.length !== 1) return null;
  if (top.some((b) => b !== ftyp && b !== moovs[0] && b !== mdats[0] && !PADDING.has(b.type))) return null;
  const [moov] = moovs;
  const [mdat] = mdats;
  if (moov.size > MAX_MOOV_BYTES || moov.header !== 8) return null;

  const quickTime = await readBox(file, moov);
  const plan = planMoov(quickTime, opts);
  if (!plan) return null;
  applyMetadataEdits(quickTime, plan, false);
  const converted = quickTimeMoovToMp4(quickTime);
  // The same tracks, planned again: the chunk tables now sit elsewhere in the new buffer.
  const mp4Plan = converted && planMoov(converted, opts);
  if (!converted || !mp4Plan || !chunksInside(converted, mp4Plan, mdat)) return null;
  const head = Buffer.concat([MP4_FTYP, converted]);
  return {
    mdat,
    head,
    moov: head.subarray(MP4_FTYP.length),
    plan: mp4Plan,
    blockSize: Math.max(512, stats.blksize || 4096),
    fileSize: stats.size,
  };
}

/** Every chunk starts inside the mdat's payload: only the mdat is carried over. */
function chunksInside(buf: Buffer, plan: MoovPlan, mdat: Box): boolean {
  for (const { box, wide } of plan.chunkTables) {
    const count = buf.readUInt32BE(payloadOf(box) + 4);
    const first = payloadOf(box) + 8;
    for (let i = 0; i < count; i++) {
      const offset = wide ? Number(buf.readBigUInt64BE(first + i * 8)) : buf.readUInt32BE(first + i * 4);
      if (offset < payloadOf(mdat) || offset >= endOf(mdat)) return false;
    }
  }
  return true;
}

/**
 * Writes the head over what comes before the mdat, after inserting a gap at the start when it
 * does not fit there, and cuts what follows the mdat. False, with the file unchanged, when
 * neither works.
 */
async function rewriteInPlace(file: FileHandle, path: string, layout: MovLayout, insertRange: boolean): Promise<boolean> {
  const { head, mdat, moov, plan } = layout;
  let room = mdat.start;
  if (head.length !== room && head.length + 8 > room) {
    if (!insertRange) return false;
    const gap = roundUp(head.length + 8 - room, layout.blockSize);
    if (!fitsOffsets(moov, plan, gap) || !(await insertGapAtStart(path, gap))) return false;
    // The file now starts with `gap` zero bytes; everything else sits `gap` further on.
    shiftChunkOffsets(moov, plan, gap);
    room += gap;
  }
  // The rest of the room (the old ftyp and moov: metadata) becomes a zero-filled `free` box.
  const region = Buffer.alloc(room);
  head.copy(region);
  if (room > head.length) boxHeader(room - head.length, "free").copy(region, head.length);
  await file.write(region, 0, region.length, 0);
  const end = room + mdat.size;
  if (layout.fileSize + (room - mdat.start) > end) await file.truncate(end);
  return true;
}

/** The output is the head, then the mdat: one sequential pass. */
async function copyAfterHead(file: FileHandle, output: string, { head, mdat }: MovLayout): Promise<void> {
  const out = await open(output, "wx");
  try {
    await out.write(head, 0, head.length, 0);
    const chunk = Buffer.allocUnsafe(COPY_CHUNK);
    for (let pos = mdat.start; pos < endOf(mdat); ) {
      const { bytesRead } = await file.read(chunk, 0, Math.min(COPY_CHUNK, endOf(mdat) - pos), pos);
      if (bytesRead === 0) throw new Error("the upload shrank while it was being copied");
      await out.write(chunk, 0, bytesRead, head.length + pos - mdat.start);
      pos += bytesRead;
    }
  } catch (error) {
    await out.close();
    await rm(output, { force: true });
    throw error;
  }
  await out.close();
}

const roundUp = (n: number, step: number): number => Math.ceil(n / step) * step;
