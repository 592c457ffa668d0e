/**
 * Which parts of an open file were read lately, so the /cdn hit path can read them again
 * on the main thread instead of libuv's pool (docs/performance.md, "Warm reads on the main
 * thread").
 *
 * A read through the pool costs two thread hops and runs its copy on whatever core the
 * pool thread gets; a read of bytes already in the page cache is a memory copy of a few
 * tens of microseconds, cheaper done where the reply is written. A read of bytes that are
 * not cached waits for the disk, and on the main thread that would stall every other
 * request: so only the 256 KiB pieces that a pool read brought in within the last
 * WARM_MS are read synchronously (nginx reads this way always; we do it only where the
 * page cache is all but certain to hold them). The first read of a piece, and the first
 * after the window, goes through the pool as before.
 */
import type { OpenFile } from "../storage/open-files";

/** The piece size: 256 KiB, the cdn lane's read size. */
const PIECE = 256 * 1024;
/** Division, not `>>`: byte positions of files over 2 GiB do not fit 32 bits. */
const pieceOf = (byte: number): number => Math.floor(byte / PIECE);
/**
 * How long a piece counts as cached after a pool read brought it in. The kernel keeps a
 * page it just served unless memory is short; half a minute is well inside that, and a
 * busy file's pieces are re-marked by the first pool read of each window.
 */
export const WARM_MS = 30_000;

interface Warmth {
  /** One bit per piece of the file. */
  bits: Uint8Array;
  /** Start of the current window: every bit is cleared when it is WARM_MS old. */
  since: number;
}

const MEMO_KEY = "warm-pieces";

function warmthOf(file: OpenFile, now: number): Warmth {
  let warmth = file.memo.get(MEMO_KEY) as Warmth | undefined;
  if (!warmth) {
    warmth = { bits: new Uint8Array((pieceOf(file.size) >> 3) + 1), since: now };
    file.memo.set(MEMO_KEY, warmth);
  } else if (now - warmth.since >= WARM_MS) {
    warmth.bits.fill(0);
    warmth.since = now;
  }
  return warmth;
}

/** Whether every piece of bytes [position, position + length) was read within the window. */
export function isWarm(file: OpenFile, position: number, length: number, now: number = Date.now()): boolean {
  if (length <= 0) return false;
  const bits = warmthOf(file, now).bits;
  const last = pieceOf(position + length - 1);
  for (let piece = pieceOf(position); piece <= last; piece++) {
    if ((bits[piece >> 3]! & (1 << (piece & 7))) === 0) return false;
  }
  return true;
}

/**
 * Bytes [position, position + length) were just read from the file: the pieces that read
 * covered whole (a file's last piece ends at its size) are cached. A piece read only in
 * part is not marked, so a later read of its other part goes through the pool.
 */
export function markWarm(file: OpenFile, position: number, length: number, now: number = Date.now()): void {
  const end = position + length;
  const first = pieceOf(position + PIECE - 1);
  const last = end >= file.size ? pieceOf(file.size - 1) : pieceOf(end) - 1;
  if (length <= 0 || last < first) return;
  const bits = warmthOf(file, now).bits;
  for (let piece = first; piece <= last; piece++) bits[piece >> 3]! |= 1 << (piece & 7);
}
