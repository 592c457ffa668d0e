/** The request id every reply carries (docs/http-core.md), made here only. */
import { randomFillSync } from "node:crypto";

/** Slices of a 4 KiB random buffer: a dashless UUID cost a regex and two strings per request (docs/performance.md, "Cached reads on Node's request"). */
const ID_BYTES = 16;
const pool = Buffer.alloc(4096);
let offset = pool.length;

export function newRequestId(): string {
  if (offset + ID_BYTES > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString("hex", offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return id;
}
