/**
 * What every benchmark in bench/ needs around its measurements: logging to stderr (stdout
 * is for the figures), cleanup steps that run on every path (end, error, Ctrl-C, time
 * budget), temporary directories, free loopback ports, the machine's description, and
 * the process bootstrap.
 */
import { rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { cpus, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** Generated inputs are cached here between runs (delete it to regenerate). */
export const CACHE_DIR = join(tmpdir(), "mediahost-bench");
export const MiB = 1024 * 1024;

export const log = (message: string): void => console.error(`[bench] ${message}`);
export const sleep = (ms: number): Promise<void> => new Promise<void>((done) => setTimeout(done, ms));
export const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;
export const mib = (bytes: number): number => bytes / MiB;
export const mark = (ok: boolean): string => (ok ? "ok" : "MISSED");
export const median = (values: number[]): number => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
/** A figure of a bench's final JSON line. */
export type Figure = number | string | boolean | null | Figure[] | { [name: string]: Figure };
/** A reference whose main thread used less of a core than this was held back by its client (or its disk). */
export const SATURATED_CPU = 0.9;

/** Cleanup steps, run last-registered first at the end, on error, on Ctrl-C and on timeout. */
const cleanups: (() => Promise<void> | void)[] = [];
let cleaning: Promise<void> | undefined;

export function onCleanup(step: () => Promise<void> | void): void {
  cleanups.push(step);
}

export function cleanupAll(): Promise<void> {
  cleaning ??= (async () => {
    for (const step of cleanups.reverse()) {
      try {
        await step();
      } catch (error) {
        log(`cleanup step failed: ${String(error)}`);
      }
    }
  })();
  return cleaning;
}

/** A fresh temporary directory, removed by cleanupAll. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createNetServer();
    probe.on("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => done(port));
    });
  });
}

export interface Machine {
  cpus: number;
  cpu_model: string;
  memory_gb: number;
  node: string;
  kernel: string;
}

export function machine(): Machine {
  const list = cpus();
  return {
    cpus: list.length,
    cpu_model: list[0]?.model.trim() ?? "unknown",
    memory_gb: round(totalmem() / 1024 ** 3, 1),
    node: process.version,
    kernel: release(),
  };
}

/**
 * Runs a benchmark's main: cleans up on success, failure and Ctrl-C/SIGTERM, and exits
 * 0, 1 (failed) or 130 (interrupted).
 */
export function runBench(main: () => Promise<void>): void {
  const interrupt = (): void => {
    log("interrupted: cleaning up");
    void cleanupAll().then(() => process.exit(130));
  };
  process.on("SIGINT", interrupt);
  process.on("SIGTERM", interrupt);
  main()
    .then(cleanupAll)
    .then(() => process.exit(0))
    .catch(async (error: unknown) => {
      log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      await cleanupAll();
      process.exit(1);
    });
}

/** Aborts the run (cleaning up, exit 2) when `ms` pass before the returned cancel is called. */
export function timeBudget(ms: number): () => void {
  const watchdog = setTimeout(() => {
    log(`time budget of ${round(ms / 60_000, 1)} minutes exceeded: aborting`);
    void cleanupAll().then(() => process.exit(2));
  }, ms);
  return () => clearTimeout(watchdog);
}

/**
 * sharp runs one libvips thread per image on glibc unless MALLOC_ARENA_MAX is set, and
 * `npm start` sets it for the server: in-process references must run with the same setting
 * (the npm scripts `bench:upload` and `bench:convert` do) or they measure a different sharp.
 */
export function sameSharpThreads(): string {
  return process.env.MALLOC_ARENA_MAX ? "as the server's" : "MALLOC_ARENA_MAX unset: run through npm to match the server";
}
