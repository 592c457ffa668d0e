/** bench:upload's command line and the constants more than one of its halves uses. */
import { join } from "node:path";
import { CACHE_DIR } from "../support/run";

export const IMAGE_COUNT = 200;
export const IMAGE_CONCURRENCY = 200;
/** Everything after the (possibly long, lock-guarded) Next build must finish within this. */
export const TIME_BUDGET_MS = 10 * 60_000;
/**
 * issue 42 §3: `upload_ratio_vs_synced`, the synced sink's time over ours (the same
 * durability: an upload is acknowledged once its file is fsynced), judged on the medians of
 * the rounds. `upload_ratio` against the bare sink (issue 29 §3's 0.8) is recorded beside it,
 * not judged: that sink answers before the disk has the bytes.
 */
export const UPLOAD_RATIO_VS_SYNCED_TARGET = 0.8;
/**
 * `--cpu-prof`: the servers run with node --cpu-prof, writing .cpuprofile files here when
 * they stop (open them in Chrome DevTools or speedscope). Kept after the run.
 */
export const PROFILE_DIR = process.argv.includes("--cpu-prof") ? join(CACHE_DIR, `profiles-${Date.now()}`) : null;

/** `--only video | --only images`: one half, for iterating on a fix. */
export function parseOnly(argv: string[]): "video" | "images" | null {
  const onlyAt = argv.indexOf("--only");
  const only = onlyAt >= 0 ? argv[onlyAt + 1] : null;
  if (only !== null && only !== "video" && only !== "images") {
    console.error("usage: node --import tsx bench/upload.ts [--only video|images] [--cpu-prof]");
    process.exit(64);
  }
  return only;
}
