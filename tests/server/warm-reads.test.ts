/**
 * Which pieces of an open file the /cdn lane may read on the main thread
 * (lib/server/warm-reads.ts): only those a pool read covered whole within the window.
 * The lane itself, with warm and cold reads mixed, is exercised on the wire by
 * tests/delivery/cdn-lane.test.ts.
 */
import { describe, expect, it } from "vitest";
import { isWarm, markWarm, WARM_MS } from "@/lib/server/warm-reads";
import type { OpenFile } from "@/lib/storage/open-files";

const KiB = 1024;
const PIECE = 256 * KiB;

function file(size: number): OpenFile {
  return { key: "f/x", path: "/nonexistent", fd: -1, size, etag: '"e"', lastModified: new Date(0), memo: new Map() };
}

describe("warm pieces", () => {
  it("nothing is warm before a read; a read marks the pieces it covered whole, and only those", () => {
    const f = file(4 * PIECE);
    expect(isWarm(f, 0, PIECE, 0)).toBe(false);
    markWarm(f, 0, PIECE, 0);
    expect(isWarm(f, 0, PIECE, 1)).toBe(true);
    expect(isWarm(f, 100, 1000, 1)).toBe(true);
    // Half of piece 1 was read: the rest of it may not be in the page cache.
    markWarm(f, PIECE, PIECE / 2, 1);
    expect(isWarm(f, PIECE, 10, 2)).toBe(false);
    // A read from the middle of piece 1 through piece 3 covers 2 and 3 whole, not 1.
    markWarm(f, PIECE + 7, 3 * PIECE - 7, 2);
    expect(isWarm(f, 2 * PIECE, 2 * PIECE, 3)).toBe(true);
    expect(isWarm(f, PIECE, 2 * PIECE, 3)).toBe(false);
  });

  it("the file's last piece counts as whole when a read reached the end of the file", () => {
    const f = file(PIECE + 63 * KiB);
    markWarm(f, 0, f.size, 0);
    expect(isWarm(f, 0, f.size, 1)).toBe(true);
    const small = file(63 * KiB);
    markWarm(small, 10, small.size - 10, 0);
    expect(isWarm(small, 10, 100, 1)).toBe(false);
    markWarm(small, 0, small.size, 0);
    expect(isWarm(small, 0, small.size, 1)).toBe(true);
  });

  it("a range is warm only when every piece it touches is", () => {
    const f = file(8 * PIECE);
    markWarm(f, 0, 2 * PIECE, 0);
    markWarm(f, 3 * PIECE, PIECE, 0);
    expect(isWarm(f, 0, 2 * PIECE, 1)).toBe(true);
    expect(isWarm(f, PIECE, 2 * PIECE + 1, 1)).toBe(false);
    expect(isWarm(f, 0, 0, 1)).toBe(false);
  });

  it("the window closes: after WARM_MS every piece needs a pool read again", () => {
    const f = file(2 * PIECE);
    markWarm(f, 0, 2 * PIECE, 1_000);
    expect(isWarm(f, 0, 2 * PIECE, 1_000 + WARM_MS - 1)).toBe(true);
    expect(isWarm(f, 0, 2 * PIECE, 1_000 + WARM_MS)).toBe(false);
    markWarm(f, 0, PIECE, 1_000 + WARM_MS);
    expect(isWarm(f, 0, PIECE, 1_000 + WARM_MS + 1)).toBe(true);
  });

  it("positions past 2 GiB (beyond 32-bit shifts) map to their own pieces", () => {
    const f = file(5 * 1024 * 1024 * KiB);
    const at = 4 * 1024 * 1024 * KiB + 3 * PIECE;
    markWarm(f, at, PIECE, 0);
    expect(isWarm(f, at, PIECE, 1)).toBe(true);
    expect(isWarm(f, at - 2 * 1024 * 1024 * KiB, PIECE, 1)).toBe(false);
    expect(isWarm(f, 3 * PIECE, PIECE, 1)).toBe(false);
  });
});
