import { readdirSync } from "node:fs";
import { appendFile, mkdtemp, readlink, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeBehind } from "../../lib/uploads/write-behind";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mediahost-write-behind-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Descriptors of this process open on `path`. */
async function openOn(path: string): Promise<number> {
  let count = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      if ((await readlink(`/proc/self/fd/${fd}`)) === path) count++;
    } catch {
      // closed meanwhile
    }
  }
  return count;
}

describe("write-behind of large received files", () => {
  it("opens nothing for a file that stays under the first step", async () => {
    const path = join(dir, "small");
    await writeFile(path, Buffer.alloc(1000));
    const behind = writeBehind(path, 4096);
    behind.progress(1000);
    await new Promise((r) => setTimeout(r, 20));
    expect(await openOn(path)).toBe(0);
    await behind.finish();
  });

  it("syncs through its own descriptor while the file grows and lets it go at the end", async () => {
    const path = join(dir, "large");
    await writeFile(path, "");
    const behind = writeBehind(path, 4096);
    for (let written = 0; written < 64 * 1024; ) {
      await appendFile(path, Buffer.alloc(1024, 7));
      written += 1024;
      behind.progress(written);
    }
    await new Promise((r) => setTimeout(r, 20));
    expect(await openOn(path)).toBe(1); // one descriptor, however many steps
    await behind.finish();
    expect(await openOn(path)).toBe(0);
  });

  it("finishes quietly when the file cannot be opened", async () => {
    const behind = writeBehind(join(dir, "missing"), 10);
    behind.progress(100);
    await expect(behind.finish()).resolves.toBeUndefined();
  });
});
