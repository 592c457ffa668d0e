import { mkdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { dataDir } from "../db/config";

/**
 * Runs `work` with a fresh temporary directory under DATA_DIR/tmp (same filesystem as
 * local storage) and removes it afterwards on every path: success, error, client abort.
 */
export async function withTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const root = join(dataDir(), "tmp");
  mkdirSync(root, { recursive: true });
  const dir = await mkdtemp(join(root, "req-"));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
