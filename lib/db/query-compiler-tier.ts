/**
 * Prisma's query compiler is WebAssembly. V8 optimises its hot functions in the background
 * (TurboFan) at every process start: ~0.3 s of CPU for the CLI and ~0.45 s for a server
 * start, which query plans never earn back because Prisma caches a plan per query shape.
 * On the baseline compiler (Liftoff) only, a start is cheaper and the process ~50 MB smaller
 * (docs/admin-cli.md, "Speed"; docs/performance.md, "Prisma's query compiler on Liftoff").
 * Call before the first query: the flag applies to modules compiled after it.
 */
import { setFlagsFromString } from "node:v8";

export function keepQueryCompilerOnBaseline(): void {
  setFlagsFromString("--liftoff-only");
}
