/**
 * Making renditions with the real disk storage and sharp (docs/renditions.md): stored once,
 * single-flight, nothing left behind when the source is gone or the file was deleted while
 * the rendition was being made, temporary directories removed on every path.
 */
import { readdir } from "node:fs/promises";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { isDomainError } from "@/lib/errors";
import { ensureRendition, renditionKey, type RenditionJob } from "@/lib/renditions";
import { storage } from "@/lib/storage";
import { tempRoot } from "@/lib/files/temp";

let counter = 0;
async function storedSource(width: number, height: number): Promise<string> {
  const key = `p/make-test/source${counter++}.png`;
  const png = await sharp({ create: { width, height, channels: 3, background: "#c33" } })
    .png()
    .toBuffer();
  await storage().putBuffer(key, png, "image/png");
  return key;
}
const job = (sourceKey: string, stillWanted = async () => true): RenditionJob => ({
  sourceKey,
  key: renditionKey(sourceKey, 320),
  width: 320,
  stillWanted,
});
const leftoverTempDirs = async (): Promise<string[]> =>
  (await readdir(tempRoot()).catch(() => [] as string[])).filter((n) => n.startsWith("req-"));
async function errorTypeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return isDomainError(error) ? error.type : `non-domain: ${String(error)}`;
  }
  return "resolved";
}

describe("ensureRendition", () => {
  it("stores a WebP of the width once; a later call leaves the stored copy alone", async () => {
    const source = await storedSource(1000, 500);
    await ensureRendition(job(source));
    const stored = await storage().stat(renditionKey(source, 320));
    expect(stored?.contentType).toBe("image/webp");
    const opened = await storage().open(renditionKey(source, 320));
    const chunks: Buffer[] = [];
    for await (const chunk of opened!.body) chunks.push(chunk as Buffer);
    const meta = await sharp(Buffer.concat(chunks)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", 320, 160]);

    await ensureRendition(job(source));
    expect((await storage().stat(renditionKey(source, 320)))?.etag).toBe(stored!.etag);
    expect(await leftoverTempDirs()).toEqual([]);
  });

  it("is single-flight: concurrent calls for one rendition share one encode", async () => {
    const source = await storedSource(800, 800);
    const first = ensureRendition(job(source));
    const second = ensureRendition(job(source));
    expect(second).toBe(first);
    await first;
    expect(await storage().stat(renditionKey(source, 320))).not.toBeNull();
  });

  it("a source that is gone is not_found, and nothing is stored", async () => {
    const key = "p/make-test/missing.png";
    expect(await errorTypeOf(ensureRendition(job(key)))).toBe("not_found");
    expect(await storage().stat(renditionKey(key, 320))).toBeNull();
    expect(await leftoverTempDirs()).toEqual([]);
  });

  it("a file deleted while its rendition was made: the rendition is removed again", async () => {
    const source = await storedSource(700, 300);
    expect(await errorTypeOf(ensureRendition(job(source, async () => false)))).toBe("not_found");
    expect(await storage().stat(renditionKey(source, 320))).toBeNull();
    expect(await leftoverTempDirs()).toEqual([]);
  });

  it("an undecodable source is invalid_request, never an unexplained failure", async () => {
    const key = "p/make-test/broken.png";
    await storage().putBuffer(key, Buffer.from("\x89PNG\r\n\x1a\nnot really a png at all"), "image/png");
    expect(await errorTypeOf(ensureRendition(job(key)))).toBe("invalid_request");
    expect(await storage().stat(renditionKey(key, 320))).toBeNull();
    expect(await leftoverTempDirs()).toEqual([]);
  });
});
