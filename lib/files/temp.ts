import { mkdirSync } from "node:fs";
import { mkdtemp, readdir, rm, rmdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { dataDir } from "@/lib/db/config";
import { ownerTag } from "./owner-tag";

/**
 * `req-<owner tag>-<random>`: the tag says which process made the directory, so what a
 * crashed process leaves is found and removed without touching a live instance's
 * directories (lib/recovery/temp-sweep.ts, docs/crash-recovery.md).
 */
export const TEMP_DIR_PREFIX = "req-";
export const tempRoot = (): string => join(dataDir(), "tmp");

const madeRoots = new Set<string>();

/** Under DATA_DIR/tmp (local storage's filesystem), removed on every path but a crash, which the start-up sweep handles. */
export async function withTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const root = tempRoot();
  const prefix = join(root, `${TEMP_DIR_PREFIX}${ownerTag()}-`);
  if (!madeRoots.has(root)) {
    mkdirSync(root, { recursive: true });
    madeRoots.add(root);
  }
  let dir: string;
  try {
    dir = await mkdtemp(prefix);
  } catch (error) {
    // Someone removed the root (a tidy-up of DATA_DIR/tmp): make it again, once.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    mkdirSync(root, { recursive: true });
    dir = await mkdtemp(prefix);
  }
  try {
    return await work(dir);
  } finally {
    await removeTempDir(dir);
  }
}

/**
 * Request directories hold a few plain files: unlinking what readdir lists is half the
 * system calls of a recursive rm (which lstat's every entry first). Anything else
 * (a sub-directory, a file that vanished) falls back to the recursive rm.
 */
async function removeTempDir(dir: string): Promise<void> {
  try {
    const names = await readdir(dir);
    await Promise.all(names.map((name) => unlink(join(dir, name))));
    await rmdir(dir);
  } catch {
    // Never fails the request whose work is done: a directory that still cannot be removed
    // is a leftover for the temp sweep (lib/recovery/temp-sweep.ts), not a 500.
    await rm(dir, { recursive: true, force: true, maxRetries: 2 }).catch((error: unknown) =>
      console.warn(`temporary directory ${dir} left for the sweep (${error instanceof Error ? error.message : String(error)})`),
    );
  }
}
