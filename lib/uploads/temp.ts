import { mkdirSync } from "node:fs";
import { mkdtemp, readdir, rm, rmdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { dataDir } from "../db/config";

/** Roots known to exist: made once per process, not on every request. */
const madeRoots = new Set<string>();

/**
 * Runs `work` with a fresh temporary directory under DATA_DIR/tmp (same filesystem as
 * local storage) and removes it afterwards on every path: success, error, client abort.
 */
export async function withTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const root = join(dataDir(), "tmp");
  if (!madeRoots.has(root)) {
    mkdirSync(root, { recursive: true });
    madeRoots.add(root);
  }
  let dir: string;
  try {
    dir = await mkdtemp(join(root, "req-"));
  } catch (error) {
    // Someone removed the root (a tidy-up of DATA_DIR/tmp): make it again, once.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    mkdirSync(root, { recursive: true });
    dir = await mkdtemp(join(root, "req-"));
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
    await rm(dir, { recursive: true, force: true });
  }
}
