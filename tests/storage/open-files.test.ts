/**
 * The open-file cache of the disk adapter (lib/storage/open-files.ts): descriptors reused,
 * forgotten on delete and overwrite through the adapter, re-checked after their window
 * when another process changes the disk, closed once the last read ends.
 */
import { fstatSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DiskStorage } from "@/lib/storage/disk";
import { OpenFileCache } from "@/lib/storage/open-files";

const root = mkdtempSync(join(tmpdir(), "mediahost-open-files-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const isOpen = (fd: number): boolean => {
  try {
    fstatSync(fd);
    return true;
  } catch {
    return false;
  }
};

describe("open-file cache through DiskStorage", () => {
  it("reuses one descriptor with the adapter's own size and ETag", async () => {
    const store = new DiskStorage(join(root, "a"));
    const info = await store.putBuffer("f/p/a.png", Buffer.from("12345"), "image/png");
    const first = await store.openFiles.acquire("f/p/a.png", store.pathOf("f/p/a.png"));
    const second = store.openFiles.take("f/p/a.png");
    expect(first).not.toBeNull();
    expect(second?.fd).toBe(first!.fd);
    expect(first!.size).toBe(5);
    expect(first!.etag).toBe(info.etag);
    store.openFiles.release(first!);
    store.openFiles.release(second!);
    expect(isOpen(first!.fd)).toBe(true);
  });

  it("a delete forgets the key at once; the descriptor closes when its last read ends", async () => {
    const store = new DiskStorage(join(root, "b"));
    await store.putBuffer("f/p/b.png", Buffer.from("bytes"), "image/png");
    const reading = (await store.openFiles.acquire("f/p/b.png", store.pathOf("f/p/b.png")))!;
    await store.delete("f/p/b.png");
    expect(store.openFiles.take("f/p/b.png")).toBeUndefined();
    expect(await store.openFiles.acquire("f/p/b.png", store.pathOf("f/p/b.png"))).toBeNull();
    expect(isOpen(reading.fd)).toBe(true); // the read in flight finishes
    store.openFiles.release(reading);
    expect(isOpen(reading.fd)).toBe(false);
  });

  it("an overwrite through the adapter serves the new bytes' ETag at once", async () => {
    const store = new DiskStorage(join(root, "c"));
    await store.putBuffer("f/p/c.png", Buffer.from("old"), "image/png");
    const old = (await store.openFiles.acquire("f/p/c.png", store.pathOf("f/p/c.png")))!;
    store.openFiles.release(old);
    const info = await store.putBuffer("f/p/c.png", Buffer.from("newer"), "image/png");
    expect(store.openFiles.take("f/p/c.png")).toBeUndefined();
    const fresh = (await store.openFiles.acquire("f/p/c.png", store.pathOf("f/p/c.png")))!;
    expect(fresh.etag).toBe(info.etag);
    expect(fresh.size).toBe(5);
    store.openFiles.release(fresh);
  });

  it("deletePrefix forgets every key under it", async () => {
    const store = new DiskStorage(join(root, "d"));
    await store.putBuffer("h/x/1.ts", Buffer.from("1"), "video/mp2t");
    const one = (await store.openFiles.acquire("h/x/1.ts", store.pathOf("h/x/1.ts")))!;
    store.openFiles.release(one);
    await store.deletePrefix("h/x/");
    expect(store.openFiles.take("h/x/1.ts")).toBeUndefined();
    expect(isOpen(one.fd)).toBe(false);
  });
});

describe("closing the adapter", () => {
  it("closes every unreferenced descriptor at once, a referenced one when its read ends; reads after it open anew", async () => {
    const store = new DiskStorage(join(root, "close"));
    await store.putBuffer("f/p/a.png", Buffer.from("aaaaa"), "image/png");
    await store.putBuffer("f/p/b.png", Buffer.from("bbbbb"), "image/png");
    const idle = await store.openFiles.acquire("f/p/a.png", store.pathOf("f/p/a.png"));
    store.openFiles.release(idle!);
    const reading = await store.openFiles.acquire("f/p/b.png", store.pathOf("f/p/b.png"));
    store.close();
    expect(store.openFiles.size).toBe(0);
    expect(isOpen(idle!.fd)).toBe(false);
    expect(isOpen(reading!.fd)).toBe(true);
    store.openFiles.release(reading!);
    expect(isOpen(reading!.fd)).toBe(false);
    const again = await store.openFiles.acquire("f/p/a.png", store.pathOf("f/p/a.png"));
    expect(again?.size).toBe(5);
    store.openFiles.release(again!);
  });
});

describe("open-file cache: changes by another process", () => {
  it("trusts an entry for its window, then re-checks the path: a file removed behind our back is gone", async () => {
    let now = 1_000;
    const cache = new OpenFileCache({ validMs: 1000, maxEntries: 10, now: () => now });
    const path = join(root, "other.bin");
    writeFileSync(path, "abc");
    const a = (await cache.acquire("k", path))!;
    cache.release(a);
    unlinkSync(path);
    now += 999;
    const within = cache.take("k");
    expect(within?.fd).toBe(a.fd); // inside the documented window
    cache.release(within!);
    now += 1;
    expect(cache.take("k")).toBeUndefined();
    expect(await cache.acquire("k", path)).toBeNull();
    expect(isOpen(a.fd)).toBe(false);
  });

  it("an unchanged file keeps its descriptor after the re-check; a replaced one gets a new one", async () => {
    let now = 1_000;
    const cache = new OpenFileCache({ validMs: 1000, maxEntries: 10, now: () => now });
    const path = join(root, "same.bin");
    writeFileSync(path, "abc");
    const a = (await cache.acquire("k", path))!;
    cache.release(a);
    now += 5000;
    const b = (await cache.acquire("k", path))!;
    expect(b.fd).toBe(a.fd);
    cache.release(b);
    const replacement = join(root, "same.bin.new");
    writeFileSync(replacement, "abcdef");
    rmSync(path);
    writeFileSync(path, "abcdef");
    now += 5000;
    const c = (await cache.acquire("k", path))!;
    expect(c.size).toBe(6);
    expect(c.etag).not.toBe(a.etag);
    cache.release(c);
    expect(isOpen(a.fd) && a.fd !== c.fd).toBe(false);
  });

  it("a load that overlapped a forget serves its one read and is not kept", async () => {
    const cache = new OpenFileCache({ validMs: 1000, maxEntries: 10 });
    const path = join(root, "race.bin");
    writeFileSync(path, "abc");
    const loading = cache.acquire("k", path);
    cache.forget("k");
    const file = (await loading)!;
    expect(file.size).toBe(3);
    expect(cache.take("k")).toBeUndefined();
    cache.release(file);
    expect(isOpen(file.fd)).toBe(false);
  });

  it("keeps at most maxEntries descriptors, closing the oldest", async () => {
    const cache = new OpenFileCache({ validMs: 1000, maxEntries: 2 });
    const fds: number[] = [];
    for (const name of ["m1", "m2", "m3"]) {
      const path = join(root, name);
      writeFileSync(path, name);
      const f = (await cache.acquire(name, path))!;
      fds.push(f.fd);
      cache.release(f);
    }
    expect(cache.size).toBe(2);
    expect(cache.take("m1")).toBeUndefined();
    expect(isOpen(fds[0])).toBe(false);
  });
});
