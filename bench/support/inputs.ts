/**
 * Generated benchmark inputs: the npm-shipped ffmpeg, and a cache that never keeps a
 * half-written file.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { createRequire } from "node:module";

export const ffmpegPath = (createRequire(import.meta.url)("@ffmpeg-installer/ffmpeg") as { path: string }).path;

/** Runs the npm-shipped ffmpeg quietly (overwriting outputs); rejects with its last stderr. */
export function ffmpeg(args: string[]): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(ffmpegPath, ["-hide_banner", "-loglevel", "error", "-y", ...args], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr?.on("data", (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
    child.on("error", fail);
    child.on("exit", (code) => (code === 0 ? done() : fail(new Error(`ffmpeg exited with ${code}: ${stderr}`))));
  });
}

/** Writes to `<path>.partial` and renames, so an interrupted run never leaves a bad cache entry. */
export async function cached(path: string, make: (partial: string) => Promise<void>): Promise<string> {
  if (existsSync(path)) return path;
  const partial = `${path}.partial`;
  try {
    await make(partial);
    await rename(partial, path);
  } finally {
    await rm(partial, { force: true });
  }
  return path;
}
