/**
 * Frees a large request body's spent buffers as it arrives, with a scavenge (V8's young-generation
 * collection, ~1 ms) every SCAVENGE_EVERY_BYTES.
 *
 * Why: each socket read is a new 64 KB buffer held outside V8's heap, dead a moment later but
 * freed only by the next collection. V8 counts the external bytes allocated since its last full
 * collection against the old generation's limit, and with `--heap-growing-percent=50`
 * (scripts/start.ts) that headroom is about half the live heap, ~30 MB. The body's buffers
 * alone reach it every ~30 MB: a 1 GiB upload set off ~25 full mark-compacts of the server's
 * whole heap (1.5–2.5 s of CPU per GiB; docs/performance.md, "Uploads"). The buffers die young,
 * so a scavenge frees them before they count, and no full collection is started.
 *
 * The scavenge comes from V8's `gc` extension in a context of its own (`--expose-gc` set at run
 * time, `gc` taken from a new vm context): nothing is added to the server's global object. Where
 * that is refused, bodies are received as before.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

export const SCAVENGE_EVERY_BYTES = 8 * 1024 * 1024;

type GcExtension = (options: { type: "minor" | "major"; execution?: "sync" | "async" }) => void;

let extension: GcExtension | null | undefined;

function scavenger(): GcExtension | null {
  if (extension === undefined) {
    try {
      setFlagsFromString("--expose-gc");
      const gc: unknown = runInNewContext("typeof gc === 'function' ? gc : null");
      extension = typeof gc === "function" ? (gc as GcExtension) : null;
    } catch {
      extension = null;
    }
  }
  return extension;
}

export interface BodyGarbage {
  /** Call with each chunk's length as it arrives. */
  received(bytes: number): void;
}

export function collectBodyGarbage(every: number = SCAVENGE_EVERY_BYTES): BodyGarbage {
  let since = 0;
  return {
    received(bytes) {
      since += bytes;
      if (since < every) return;
      since = 0;
      scavenger()?.({ type: "minor" });
    },
  };
}
