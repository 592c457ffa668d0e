/**
 * One behavioural contract, run against every storage adapter: disk always; S3 against
 * a real s3rver started by this file (single PutObject, and again with a low multipart
 * threshold and a key prefix); Vercel Blob only when BLOB_READ_WRITE_TOKEN is
 * set (it needs the network).
 */
import { createHash, randomBytes } from "node:crypto";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { once } from "node:events";
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DiskStorage } from "@/lib/storage/disk";
import { S3Storage, createS3Client } from "@/lib/storage/s3";
import { BlobStorage } from "@/lib/storage/blob";
import type { Storage } from "@/lib/storage/types";

const MiB = 1024 * 1024;
const BIG_SIZE = 50 * MiB;

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function sha256Of(body: Readable): Promise<{ hash: string; bytes: number }> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of body) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { hash: hash.digest("hex"), bytes };
}

// A gc() without --expose-gc: streams leave 64 KiB chunks behind as garbage that V8 only
// collects once tens of MB of it have piled up, which would swamp the measurement.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as (options?: { type: "major" | "minor" }) => void;

/**
 * Peak RSS growth (bytes) while fn runs. Garbage is collected at every sample, so what is
 * measured is memory actually held: an adapter that buffered the file would hold all of it.
 */
async function rssGrowthDuring(fn: () => Promise<unknown>): Promise<number> {
  gc();
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
    // A scavenge is enough (the chunks die young) and takes about a millisecond.
    gc({ type: "minor" });
  }, 10);
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, process.memoryUsage.rss()) - before;
}

// Shared local files: a small one and a 50 MB one written in 1 MiB chunks (never whole).
const workDir = mkdtempSync(join(tmpdir(), "mediahost-storage-contract-"));
const smallPath = join(workDir, "small.bin");
const bigPath = join(workDir, "big.bin");
const smallBytes = randomBytes(3000);
let bigHash = "";

beforeAll(async () => {
  const small = createWriteStream(smallPath);
  small.end(smallBytes);
  await once(small, "finish");
  const big = createWriteStream(bigPath);
  const hash = createHash("sha256");
  const chunk = randomBytes(MiB);
  for (let i = 0; i < BIG_SIZE / MiB; i++) {
    chunk.writeUInt32BE(i, 0); // every chunk differs: a misplaced part would show in the hash
    hash.update(chunk);
    if (!big.write(chunk)) await once(big, "drain");
  }
  big.end();
  await once(big, "finish");
  bigHash = hash.digest("hex");
});

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

interface AdapterFixture {
  storage: Storage;
  /** Per-run namespace so parallel runs and remote stores never collide. */
  ns: string;
}

function contract(name: string, setup: () => Promise<AdapterFixture>, teardown: () => Promise<void>): void {
  describe(`storage contract: ${name}`, () => {
    let s: Storage;
    let ns: string;
    beforeAll(async () => {
      ({ storage: s, ns } = await setup());
    });
    afterAll(async () => {
      await s?.deletePrefix(`${ns}/`).catch(() => undefined);
      await teardown();
    });
    const k = (key: string) => `${ns}/${key}`;

    it("putBuffer then stat: size, type, a quoted strong ETag, lastModified", async () => {
      const data = randomBytes(1234);
      const put = await s.putBuffer(k("a/one.png"), data, "image/png");
      expect(put.size).toBe(1234);
      expect(put.contentType).toBe("image/png");
      expect(put.etag).toMatch(/^"[^"]+"$/);
      const info = await s.stat(k("a/one.png"));
      expect(info).not.toBeNull();
      expect(info!.size).toBe(1234);
      expect(info!.contentType).toBe("image/png");
      expect(info!.etag).toBe(put.etag);
      expect(info!.lastModified).toBeInstanceOf(Date);
      expect(Math.abs(info!.lastModified.getTime() - Date.now())).toBeLessThan(10 * 60_000);
    });

    it("open returns the whole object and its info", async () => {
      const data = randomBytes(5000);
      await s.putBuffer(k("a/whole.webp"), data, "image/webp");
      const obj = await s.open(k("a/whole.webp"));
      expect(obj).not.toBeNull();
      expect(obj!.size).toBe(5000);
      expect(obj!.contentType).toBe("image/webp");
      expect(obj!.range).toBeUndefined();
      expect((await readAll(obj!.body)).equals(data)).toBe(true);
    });

    it("open with ranges: first byte, last byte, middle, suffix, end past the object", async () => {
      const data = randomBytes(1000);
      await s.putBuffer(k("r/data.mp4"), data, "video/mp4");
      const cases: [number, number, number, number][] = [
        // asked start, asked end, expected start, expected end
        [0, 0, 0, 0],
        [999, 999, 999, 999],
        [100, 199, 100, 199],
        [990, 999, 990, 999], // a suffix, as serving computes it from stat
        [995, 5000, 995, 999], // clamped
      ];
      for (const [start, end, es, ee] of cases) {
        const obj = await s.open(k("r/data.mp4"), { start, end });
        expect(obj, `${start}-${end}`).not.toBeNull();
        expect(obj!.size).toBe(1000);
        expect(obj!.range).toEqual({ start: es, end: ee });
        const got = await readAll(obj!.body);
        expect(got.equals(data.subarray(es, ee + 1)), `${start}-${end}`).toBe(true);
      }
    });

    it("a range starting past the end is a RangeError", async () => {
      await s.putBuffer(k("r/short.gif"), randomBytes(10), "image/gif");
      await expect(s.open(k("r/short.gif"), { start: 10, end: 20 })).rejects.toBeInstanceOf(RangeError);
      await expect(s.open(k("r/short.gif"), { start: 5, end: 2 })).rejects.toBeInstanceOf(RangeError);
    });

    it("an empty object: size 0, no bytes, and any range is a RangeError", async () => {
      const put = await s.putBuffer(k("e/empty.bin"), Buffer.alloc(0), "application/octet-stream");
      expect(put.size).toBe(0);
      const obj = await s.open(k("e/empty.bin"));
      expect(obj!.size).toBe(0);
      expect((await readAll(obj!.body)).length).toBe(0);
      await expect(s.open(k("e/empty.bin"), { start: 0, end: 0 })).rejects.toBeInstanceOf(RangeError);
    });

    it("missing keys give null", async () => {
      expect(await s.stat(k("missing/nothing.png"))).toBeNull();
      expect(await s.open(k("missing/nothing.png"))).toBeNull();
      expect(await s.open(k("missing/nothing.png"), { start: 0, end: 9 })).toBeNull();
    });

    it("content types round-trip, including types no extension implies", async () => {
      await s.putBuffer(k("t/x.bin"), Buffer.from("x"), "application/x-custom");
      await s.putBuffer(k("t/noext"), Buffer.from("y"), "text/plain; charset=utf-8");
      await s.putBuffer(k("t/list.m3u8"), Buffer.from("#EXTM3U\n"), "application/vnd.apple.mpegurl");
      await s.putBuffer(k("t/seg0.ts"), Buffer.from("ts"), "video/mp2t");
      expect((await s.stat(k("t/x.bin")))!.contentType).toBe("application/x-custom");
      expect((await s.stat(k("t/noext")))!.contentType).toBe("text/plain; charset=utf-8");
      expect((await s.stat(k("t/list.m3u8")))!.contentType).toBe("application/vnd.apple.mpegurl");
      const seg = await s.open(k("t/seg0.ts"));
      expect(seg!.contentType).toBe("video/mp2t");
      seg!.body.destroy();
      const noext = await s.open(k("t/noext"), { start: 0, end: 0 });
      expect(noext!.contentType).toBe("text/plain; charset=utf-8");
      noext!.body.destroy();
    });

    it("a known extension with another type is refused and stores nothing", async () => {
      await expect(s.putBuffer(k("t/wrong.png"), Buffer.from("x"), "image/jpeg")).rejects.toThrow(/implies image\/png/);
      await expect(s.putFile(k("t/wrong.mp4"), smallPath, "text/html")).rejects.toThrow();
      expect(await s.stat(k("t/wrong.png"))).toBeNull();
      expect(await s.stat(k("t/wrong.mp4"))).toBeNull();
    });

    it("overwriting a key replaces the bytes and changes the ETag", async () => {
      const first = await s.putBuffer(k("o/same.jpg"), Buffer.alloc(64, 1), "image/jpeg");
      await new Promise((r) => setTimeout(r, 5));
      const second = await s.putBuffer(k("o/same.jpg"), Buffer.alloc(64, 2), "image/jpeg");
      expect(second.etag).not.toBe(first.etag);
      const obj = await s.open(k("o/same.jpg"));
      expect(obj!.etag).toBe(second.etag);
      expect((await readAll(obj!.body)).equals(Buffer.alloc(64, 2))).toBe(true);
    });

    it("delete removes and is idempotent", async () => {
      await s.putBuffer(k("d/gone.png"), Buffer.from("png"), "image/png");
      await s.putBuffer(k("d/gone.dat"), Buffer.from("dat"), "application/x-data");
      await s.delete(k("d/gone.png"));
      await s.delete(k("d/gone.dat"));
      expect(await s.stat(k("d/gone.png"))).toBeNull();
      expect(await s.stat(k("d/gone.dat"))).toBeNull();
      await s.delete(k("d/gone.png"));
      await s.delete(k("d/never/was.png"));
    });

    it("deletePrefix removes a folder, or everything starting with a string, and nothing else", async () => {
      const keys = ["h/p1/a.ts", "h/p1/b.m3u8", "h/p1/sub/c.ts", "h/p1/meta.json", "h/p10/d.ts", "h/p2/e.ts", "h/q.ts"];
      for (const key of keys) {
        const type = key.endsWith(".ts") ? "video/mp2t" : key.endsWith(".m3u8") ? "application/vnd.apple.mpegurl" : "application/json";
        await s.putBuffer(k(key), Buffer.from(key), type);
      }
      await s.deletePrefix(k("h/p1/"));
      for (const key of keys.slice(0, 4)) expect(await s.stat(k(key)), key).toBeNull();
      for (const key of keys.slice(4)) expect(await s.stat(k(key)), key).not.toBeNull();
      await s.deletePrefix(k("h/p"));
      expect(await s.stat(k("h/p10/d.ts"))).toBeNull();
      expect(await s.stat(k("h/p2/e.ts"))).toBeNull();
      expect(await s.stat(k("h/q.ts"))).not.toBeNull();
      // Idempotent, and fine for prefixes that never existed.
      await s.deletePrefix(k("h/p1/"));
      await s.deletePrefix(k("nothing/here/"));
      // A re-created key under a deleted prefix reads normally (no stale type metadata).
      await s.putBuffer(k("h/p1/meta.json"), Buffer.from("{}"), "application/json");
      expect((await s.stat(k("h/p1/meta.json")))!.contentType).toBe("application/json");
    });

    it("putFile stores a small file", async () => {
      const info = await s.putFile(k("f/small.mp3"), smallPath, "audio/mpeg");
      expect(info.size).toBe(smallBytes.length);
      expect(info.contentType).toBe("audio/mpeg");
      const obj = await s.open(k("f/small.mp3"));
      expect((await readAll(obj!.body)).equals(smallBytes)).toBe(true);
    });

    it("putFile streams a 50 MB file without RSS growing anywhere near 50 MB", async () => {
      // Warm up: the first put loads code (the S3 SDK lazily loads modules).
      await s.putFile(k("f/warm.mp4"), smallPath, "video/mp4");
      let info: Awaited<ReturnType<Storage["putFile"]>> | undefined;
      const growth = await rssGrowthDuring(async () => {
        info = await s.putFile(k("f/big.mp4"), bigPath, "video/mp4");
      });
      expect(info!.size).toBe(BIG_SIZE);
      expect(growth, `RSS grew by ${(growth / MiB).toFixed(1)} MiB`).toBeLessThan(16 * MiB);
      const whole = await s.open(k("f/big.mp4"));
      expect(await sha256Of(whole!.body)).toEqual({ hash: bigHash, bytes: BIG_SIZE });
      // A range across a multipart part boundary (5 MiB parts in the multipart run).
      const start = 5 * MiB - 10;
      const part = await s.open(k("f/big.mp4"), { start, end: start + 19 });
      expect((await readAll(part!.body)).length).toBe(20);
    }, 120_000);

    it("a failed putFile (missing local file) leaves nothing at the key", async () => {
      await expect(s.putFile(k("f/failed.png"), join(workDir, "does-not-exist.png"), "image/png")).rejects.toThrow();
      expect(await s.stat(k("f/failed.png"))).toBeNull();
      // Also over an existing key: the old object survives intact.
      await s.putBuffer(k("f/kept.png"), Buffer.from("old"), "image/png");
      await expect(s.putFile(k("f/kept.png"), join(workDir, "nope.png"), "image/png")).rejects.toThrow();
      const kept = await s.open(k("f/kept.png"));
      expect((await readAll(kept!.body)).toString()).toBe("old");
    });

    it("rejects invalid keys and prefixes as programming errors", async () => {
      const bad = [
        "",
        "/abs/x.png",
        "a/../b.png",
        "..",
        "a//b.png",
        "a\\b.png",
        "a/\0.png",
        "./a.png",
        "a/.hidden",
        "a b.png",
        "a/",
        "é.png",
        "x".repeat(1000),
      ];
      for (const key of bad) {
        await expect(s.stat(key), JSON.stringify(key)).rejects.toThrow(/Invalid storage key/);
        await expect(s.open(key), JSON.stringify(key)).rejects.toThrow(/Invalid storage key/);
        await expect(s.putBuffer(key, Buffer.from("x"), "image/png"), JSON.stringify(key)).rejects.toThrow(/Invalid storage key/);
        await expect(s.delete(key), JSON.stringify(key)).rejects.toThrow(/Invalid storage key/);
      }
      for (const prefix of ["", "/", "../", "a/../", "/abs/"]) {
        await expect(s.deletePrefix(prefix), JSON.stringify(prefix)).rejects.toThrow(/Invalid storage prefix/);
      }
    });
  });
}

// ---- disk ----
let diskRoot = "";
contract(
  "disk",
  async () => {
    diskRoot = mkdtempSync(join(tmpdir(), "mediahost-disk-"));
    return { storage: new DiskStorage(diskRoot), ns: "c" };
  },
  async () => {
    // No temp file may survive any of the tests above, failed puts included.
    const leftovers = (await readdir(diskRoot, { recursive: true })).filter((p) => String(p).endsWith(".tmp"));
    expect(leftovers).toEqual([]);
    rmSync(diskRoot, { recursive: true, force: true });
  },
);

// ---- S3 against s3rver ----
// s3rver runs in a child process (tests/storage/s3rver-child.mjs): same real HTTP and S3
// protocol, and the RSS test then measures only our side of the upload.
const BUCKET = "mediahost-test";
let s3rver: ChildProcess | undefined;
let s3Dir = "";
let endpoint = "";

async function startS3rver(): Promise<string> {
  if (endpoint) return endpoint;
  s3Dir = mkdtempSync(join(tmpdir(), "mediahost-s3rver-"));
  const child = fork(fileURLToPath(new URL("./s3rver-child.mjs", import.meta.url)), [s3Dir, BUCKET], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  s3rver = child;
  const [message] = (await Promise.race([
    once(child, "message"),
    once(child, "exit").then(([code]) => Promise.reject(new Error(`s3rver exited with ${code}`))),
  ])) as [{ port: number }];
  endpoint = `http://127.0.0.1:${message.port}`;
  return endpoint;
}

const s3Clients: S3Storage[] = [];
function s3Adapter(options: { prefix?: string; multipartThreshold?: number; partSize?: number }): () => Promise<AdapterFixture> {
  return async () => {
    const config = {
      bucket: BUCKET,
      endpoint: await startS3rver(),
      // s3rver's built-in credentials.
      accessKeyId: "S3RVER",
      secretAccessKey: "S3RVER",
      ...options,
    };
    const storage = new S3Storage({ ...config, client: createS3Client(config) });
    s3Clients.push(storage);
    return { storage, ns: "c" };
  };
}

async function stopS3rver(): Promise<void> {
  for (const s of s3Clients.splice(0)) s.client.destroy();
  if (s3rver?.connected) {
    const exited = once(s3rver, "exit");
    s3rver.disconnect();
    await exited;
  }
  s3rver = undefined;
  endpoint = "";
  if (s3Dir) rmSync(s3Dir, { recursive: true, force: true });
}

contract("s3 (s3rver, single PutObject)", s3Adapter({}), async () => undefined);
contract(
  "s3 (s3rver, multipart, S3_PREFIX)",
  s3Adapter({ prefix: "tenant-a", multipartThreshold: 6 * MiB, partSize: 5 * MiB }),
  stopS3rver,
);

// ---- Vercel Blob (network; only with a token) ----
const blobToken = process.env.BLOB_READ_WRITE_TOKEN || "";
describe.skipIf(!blobToken)("Vercel Blob", () => {
  contract(
    "blob",
    async () => ({
      storage: new BlobStorage({
        token: blobToken,
        access: (process.env.BLOB_ACCESS || "private") === "public" ? "public" : "private",
        prefix: "mediahost-contract-test",
        useCache: false,
      }),
      ns: `run-${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`,
    }),
    async () => undefined,
  );
});
