/**
 * The scratch-buffer pool (lib/media/scratch.ts) and processImage running on it: buffers
 * are reused between jobs, never shared by two jobs at once, bounded in number, and a
 * burst of different images still comes out exactly as each one should.
 */
import { readFile, writeFile } from "node:fs/promises";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { processImage } from "@/lib/media/image";
import { rewriteImage } from "@/lib/media/image-container";
import { MAX_POOLED_BYTES, scratchKept, withScratch } from "@/lib/media/scratch";
import { SECRET, useScratchDir } from "../support/media";

const at = useScratchDir();

describe("withScratch", () => {
  it("lends a buffer big enough and lends the same memory again once it is back", async () => {
    const first = await withScratch(100_000, async (b) => {
      expect(b.length).toBeGreaterThanOrEqual(100_000);
      return b.buffer;
    });
    const second = await withScratch(90_000, async (b) => b.buffer);
    expect(second === first, "the same ArrayBuffer").toBe(true);
  });

  it("after a run of small files, a larger buffer given back is kept (the oldest goes instead)", async () => {
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    const small = Array.from({ length: 4 }, () => withScratch(1_000, () => held));
    release();
    await Promise.all(small);
    const first = await withScratch(200_000, async (b) => b.buffer);
    expect(scratchKept()).toBe(4);
    expect((await withScratch(200_000, async (b) => b.buffer)) === first, "the same ArrayBuffer").toBe(true);
  });

  it("never lends one buffer to two jobs at once, and keeps at most four", async () => {
    const lent: ArrayBufferLike[] = [];
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    const jobs = Array.from({ length: 6 }, () =>
      withScratch(90_000, async (b) => {
        lent.push(b.buffer);
        await held;
      }),
    );
    await new Promise((done) => setImmediate(done));
    expect(new Set(lent).size).toBe(6);
    release();
    await Promise.all(jobs);
    expect(scratchKept()).toBeLessThanOrEqual(4);
  });

  it("does not keep a buffer for a file over the pooled size", async () => {
    const before = scratchKept();
    const big = await withScratch(MAX_POOLED_BYTES + 1, async (b) => b.buffer);
    expect(scratchKept()).toBe(before);
    expect(await withScratch(MAX_POOLED_BYTES + 1, async (b) => b.buffer)).not.toBe(big);
  });

  it("takes the buffer back when the job fails", async () => {
    await withScratch(50_000, async () => undefined); // at least one that fits is kept
    const before = scratchKept();
    await expect(
      withScratch(50_000, async () => {
        expect(scratchKept()).toBe(before - 1);
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(scratchKept()).toBe(before);
  });
});

describe("processImage on pooled buffers", () => {
  it("a burst of different JPEGs: each output is exactly its own input, stripped", async () => {
    const inputs = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const bytes = await sharp({
          create: {
            width: 64 + i * 16,
            height: 48 + i * 8,
            channels: 3,
            background: "#000",
            noise: { type: "gaussian", mean: 40 + i * 20, sigma: 30 },
          },
        })
          .jpeg({ quality: 85 })
          .withExif({ IFD0: { Make: `${SECRET.make} ${i}` } })
          .toBuffer();
        const path = at(`burst-${i}.jpg`);
        await writeFile(path, bytes);
        return { path, bytes, width: 64 + i * 16, height: 48 + i * 8 };
      }),
    );
    const results = await Promise.all(
      inputs.map((input, i) => processImage(input.path, at(`burst-${i}.out.jpg`), { keepMetadata: false, format: "jpeg" })),
    );
    for (const [i, input] of inputs.entries()) {
      expect(results[i]).toMatchObject({ width: input.width, height: input.height, mime: "image/jpeg" });
      const written = await readFile(at(`burst-${i}.out.jpg`));
      // Byte for byte what surgery on a private copy gives: no other job's bytes in it.
      expect(written.equals(rewriteImage(input.bytes, "jpeg", false)!.bytes)).toBe(true);
      expect(written.includes(Buffer.from(SECRET.make))).toBe(false);
      expect(results[i].size).toBe(written.length);
    }
  });
});
