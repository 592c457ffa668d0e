/**
 * Reused buffers for image container work: fresh Buffers count as V8 external memory, and one
 * per photo made the server mark its whole heap every few uploads (docs/performance.md, "Reused
 * image buffers"). A lent buffer goes back when `work` settles: keep no reference (or subarray) past that.
 */

/** Files larger than this get a fresh buffer, dropped after use: a rare big file should not pin memory. */
export const MAX_POOLED_BYTES = 8 * 1024 * 1024;
/** Buffers kept between jobs (two per job; media concurrency is small), and their bytes at most. */
const MAX_KEPT = 4;
const MAX_KEPT_BYTES = 16 * 1024 * 1024;
/** Pooled buffers come in powers of two from here, so one serves a range of sizes. */
const MIN_POOLED_BYTES = 64 * 1024;

const kept: Buffer[] = [];

/** Contents undefined. */
export async function withScratch<T>(size: number, work: (buffer: Buffer) => Promise<T>): Promise<T> {
  if (size > MAX_POOLED_BYTES) return work(Buffer.allocUnsafeSlow(size));
  const buffer = take(size);
  try {
    return await work(buffer);
  } finally {
    give(buffer);
  }
}

function take(size: number): Buffer {
  // The smallest kept buffer that fits; of equal ones, the one given back last (its memory
  // is the likeliest still in the CPU's caches).
  let best = -1;
  for (let i = kept.length - 1; i >= 0; i--) {
    if (kept[i].length >= size && (best < 0 || kept[i].length < kept[best].length)) best = i;
  }
  if (best >= 0) return kept.splice(best, 1)[0];
  let length = MIN_POOLED_BYTES;
  while (length < size) length *= 2;
  // allocUnsafeSlow: a buffer of its own, never a slice of Node's shared 8 KB pool.
  return Buffer.allocUnsafeSlow(length);
}

function give(buffer: Buffer): void {
  kept.push(buffer);
  // Over the count, the one given back longest ago goes: what stays kept is what recent files
  // needed (dropping the largest instead kept a pool of small buffers after a run of small
  // files and threw away every larger one the moment it came back). Over the bytes, the
  // largest goes.
  if (kept.length > MAX_KEPT) kept.shift();
  while (kept.reduce((n, b) => n + b.length, 0) > MAX_KEPT_BYTES) {
    let largest = 0;
    for (let i = 1; i < kept.length; i++) if (kept[i].length > kept[largest].length) largest = i;
    kept.splice(largest, 1);
  }
}

export function scratchKept(): number {
  return kept.length;
}
