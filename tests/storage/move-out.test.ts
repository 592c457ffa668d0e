/**
 * DiskStorage.moveOut (lib/storage/types.ts): a temporary object handed over as a local file
 * by a rename, no byte copied (tus assembly, docs/resumable-uploads.md "Disk space").
 */
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DiskStorage } from "@/lib/storage";

let dir: string;
let store: DiskStorage;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "move-out-"));
  store = new DiskStorage(join(dir, "files"));
});
afterEach(async () => {
  store.close();
  await rm(dir, { recursive: true, force: true });
});

describe("DiskStorage.moveOut", () => {
  it("renames the object to the local path (same inode) and forgets it, sidecar included", async () => {
    const source = join(dir, "in");
    await writeFile(source, "chunk bytes");
    await store.putFile("tus/abc/000-x", source, "application/octet-stream");
    const inode = (await stat(store.pathOf("tus/abc/000-x"))).ino;
    const target = join(dir, "out");
    expect(await store.moveOut("tus/abc/000-x", target)).toBe(true);
    expect(await readFile(target, "utf8")).toBe("chunk bytes");
    expect((await stat(target)).ino).toBe(inode);
    expect(await store.stat("tus/abc/000-x")).toBeNull();
    await expect(stat(join(dir, "files", "tus", "abc", ".000-x.type"))).rejects.toThrow();
  });

  it("answers false for a missing object and leaves the target alone", async () => {
    const target = join(dir, "out");
    expect(await store.moveOut("tus/abc/none", target)).toBe(false);
    await expect(stat(target)).rejects.toThrow();
  });
});
