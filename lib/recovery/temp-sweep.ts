/** DATA_DIR/tmp/req-* of processes that no longer run (lib/files/owner-tag.ts); anything else there is not ours and stays. */
import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { TEMP_DIR_PREFIX, tempRoot } from "@/lib/files/temp";
import { reclaimable } from "@/lib/files/owner-tag";

export interface TempSweep {
  removed: string[];
  /** Bytes of the files removed (du-like: the sizes of the regular files). */
  bytes: number;
}

const TAGGED = new RegExp(`^${TEMP_DIR_PREFIX}([0-9a-z.]+)-[A-Za-z0-9]{6}$`);
const UNTAGGED = new RegExp(`^${TEMP_DIR_PREFIX}[A-Za-z0-9]{6}$`);

export async function sweepTempDirs(orphanAgeMs: number, root: string = tempRoot()): Promise<TempSweep> {
  const result: TempSweep = { removed: [], bytes: 0 };
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return result; // no DATA_DIR/tmp yet
  }
  for (const name of names) {
    const tag = TAGGED.exec(name)?.[1];
    if (!tag && !UNTAGGED.test(name)) continue;
    const path = join(root, name);
    let modifiedMs: number;
    try {
      modifiedMs = (await stat(path)).mtimeMs;
    } catch {
      continue; // removed meanwhile by its owner
    }
    // Untagged directories have no owner to ask: the age decides.
    const reclaim = tag ? reclaimable(tag, modifiedMs, orphanAgeMs) : Date.now() - modifiedMs > orphanAgeMs;
    if (!reclaim) continue;
    result.bytes += await sizeOfTree(path);
    await rm(path, { recursive: true, force: true });
    result.removed.push(name);
  }
  return result;
}

async function sizeOfTree(dir: string): Promise<number> {
  let total = 0;
  try {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) total += await sizeOfTree(path);
      else if (entry.isFile()) total += (await stat(path).catch(() => ({ size: 0 }))).size;
    }
  } catch {
    // gone meanwhile
  }
  return total;
}
