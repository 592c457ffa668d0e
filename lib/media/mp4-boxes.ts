/** ISO-BMFF box headers for the in-place fast start and the MOV rewrite: sizes and positions, never sample data. */
import type { FileHandle } from "node:fs/promises";

export type Box = {
  type: string;
  /** Offset of the box's first byte (in the file, or in the buffer it was read from). */
  start: number;
  size: number;
  /** Header bytes: 8, 16 with a 64-bit size (a `uuid` box's user type counts as payload). */
  header: number;
};

/** The box structure is not what a well-formed file has: the caller takes the slow path. */
export class MalformedBox extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MalformedBox";
  }
}

/**
 * A layout read whose malformed boxes mean "not the simple case" (null, and the caller
 * remuxes with ffmpeg); any other error (I/O) propagates.
 */
export async function unlessMalformed<T>(read: Promise<T | null>): Promise<T | null> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof MalformedBox) return null;
    throw error;
  }
}

export const payloadOf = (box: Box): number => box.start + box.header;
export const endOf = (box: Box): number => box.start + box.size;

/** Parses one header from `head` (at least 16 bytes when available) for a box at `start`, inside a parent ending at `limit`. */
function headerAt(head: Buffer, start: number, limit: number): Box {
  if (head.length < 8) throw new MalformedBox(`truncated box header at ${start}`);
  const size32 = head.readUInt32BE(0);
  const type = head.toString("latin1", 4, 8);
  let size: number;
  let header = 8;
  if (size32 === 1) {
    if (head.length < 16) throw new MalformedBox(`truncated 64-bit size at ${start}`);
    const big = head.readBigUInt64BE(8);
    if (big > BigInt(Number.MAX_SAFE_INTEGER)) throw new MalformedBox(`box too large at ${start}`);
    size = Number(big);
    header = 16;
  } else if (size32 === 0) {
    size = limit - start; // "extends to the end of the file"
  } else {
    size = size32;
  }
  if (size < header || start + size > limit) throw new MalformedBox(`box ${JSON.stringify(type)} at ${start} overruns its parent`);
  return { type, start, size, header };
}

export function childBoxes(buf: Buffer, from: number, to: number): Box[] {
  const out: Box[] = [];
  for (let at = from; at < to; ) {
    if (to - at < 8) throw new MalformedBox(`trailing bytes at ${at}`);
    const box = headerAt(buf.subarray(at, Math.min(to, at + 16)), at, to);
    out.push(box);
    at += box.size;
  }
  return out;
}

export async function topLevelBoxes(file: FileHandle, fileSize: number, maxBoxes = 1024): Promise<Box[]> {
  const out: Box[] = [];
  const head = Buffer.alloc(16);
  for (let at = 0; at < fileSize; ) {
    if (out.length >= maxBoxes) throw new MalformedBox("too many top-level boxes");
    const { bytesRead } = await file.read(head, 0, 16, at);
    const box = headerAt(head.subarray(0, bytesRead), at, fileSize);
    out.push(box);
    at += box.size;
  }
  return out;
}

/** The first child of `parent` (inside `buf`) of `type`, skipping `skip` payload bytes first (FullBox fields). */
export function findChild(buf: Buffer, parent: Box, type: string, skip = 0): Box | undefined {
  return childBoxes(buf, payloadOf(parent) + skip, endOf(parent)).find((b) => b.type === type);
}

export async function readBox(file: FileHandle, box: Box): Promise<Buffer> {
  const buf = Buffer.alloc(box.size);
  const { bytesRead } = await file.read(buf, 0, box.size, box.start);
  if (bytesRead !== box.size) throw new MalformedBox(`short read of ${box.type}`);
  return buf;
}

/** A box header: 8 bytes, or with `large` 16 (size field 1, then the 64-bit size). */
export function boxHeader(size: number, type: string, large = false): Buffer {
  const head = Buffer.alloc(large ? 16 : 8);
  head.writeUInt32BE(large ? 1 : size, 0);
  head.write(type, 4, "latin1");
  if (large) head.writeBigUInt64BE(BigInt(size), 8);
  return head;
}
