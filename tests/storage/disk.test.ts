/** What the disk adapter promises beyond the shared contract: layout and atomic writes. */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { DiskStorage, defaultDiskRoot } from "@/lib/storage/disk";

const root = mkdtempSync(join(tmpdir(), "mediahost-disk-specific-"));
const scratch = mkdtempSync(join(tmpdir(), "mediahost-disk-scratch-"));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});
const s = new DiskStorage(root);

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const tempFiles = (dir: string) =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .filter((p) => p.endsWith(".tmp"));

describe("DiskStorage", () => {
  it("defaults to DATA_DIR/files", () => {
    expect(defaultDiskRoot()).toBe(join(process.env.DATA_DIR!, "files"));
    expect(new DiskStorage().root).toBe(join(process.env.DATA_DIR!, "files"));
  });

  it("stores a key at its relative path; only types no extension implies get a sidecar", async () => {
    await s.putBuffer("f/p1/a.png", Buffer.from("png"), "image/png");
    await s.putBuffer("f/p1/b.json", Buffer.from("{}"), "application/json");
    expect(readFileSync(join(root, "f/p1/a.png"), "utf8")).toBe("png");
    expect(existsSync(join(root, "f/p1/.a.png.type"))).toBe(false);
    expect(readFileSync(join(root, "f/p1/.b.json.type"), "utf8")).toBe("application/json");
    await s.delete("f/p1/b.json");
    expect(existsSync(join(root, "f/p1/.b.json.type"))).toBe(false);
  });

  it("an overwrite never disturbs a reader: an open stream keeps the old bytes, whole", async () => {
    const before = randomBytes(256 * 1024);
    const after = randomBytes(256 * 1024);
    await s.putBuffer("f/p2/v.mp4", before, "video/mp4");
    const reading = await s.open("f/p2/v.mp4");
    await s.putBuffer("f/p2/v.mp4", after, "video/mp4");
    expect((await readAll(reading!.body)).equals(before)).toBe(true);
    expect((await readAll((await s.open("f/p2/v.mp4"))!.body)).equals(after)).toBe(true);
  });

  it("concurrent writers to one key leave exactly one of them, complete", async () => {
    const versions = Array.from({ length: 8 }, () => randomBytes(128 * 1024));
    await Promise.all(versions.map((v) => s.putBuffer("f/p3/race.webp", v, "image/webp")));
    const got = await readAll((await s.open("f/p3/race.webp"))!.body);
    expect(versions.some((v) => v.equals(got))).toBe(true);
    expect(tempFiles(join(root, "f/p3"))).toEqual([]);
  });

  it("a crash's leftover temp file is never visible as an object", async () => {
    mkdirSync(join(root, "f/p4"), { recursive: true });
    writeFileSync(join(root, "f/p4/.x.png.0123abcd.tmp"), "half a file");
    expect(await s.stat("f/p4/x.png")).toBeNull();
    expect(await s.open("f/p4/x.png")).toBeNull();
  });

  it("a put that fails while copying removes its temp file and leaves the key as it was", async () => {
    await s.putBuffer("f/p5/keep.gif", Buffer.from("old"), "image/gif");
    // A directory opens fine but cannot be read: the copy fails midway.
    const dirSource = join(scratch, "not-a-file");
    mkdirSync(dirSource);
    await expect(s.putFile("f/p5/keep.gif", dirSource, "image/gif")).rejects.toThrow();
    expect(readFileSync(join(root, "f/p5/keep.gif"), "utf8")).toBe("old");
    expect(tempFiles(join(root, "f/p5"))).toEqual([]);
  });

  it("putFile leaves the source file where it was", async () => {
    const source = join(scratch, "upload.tmp.jpg");
    writeFileSync(source, "jpeg bytes");
    await s.putFile("f/p6/photo.jpg", source, "image/jpeg");
    expect(readFileSync(source, "utf8")).toBe("jpeg bytes");
    expect(readFileSync(join(root, "f/p6/photo.jpg"), "utf8")).toBe("jpeg bytes");
  });

  it("a key naming a folder is not an object", async () => {
    await s.putBuffer("f/p7/inner/a.png", Buffer.from("x"), "image/png");
    expect(await s.stat("f/p7/inner")).toBeNull();
    expect(await s.open("f/p7/inner")).toBeNull();
  });
});
