/**
 * The request id every reply carries (docs/http-core.md): 32 random hex characters, made
 * here only, for the custom server, the dispatcher (in-process calls and `next dev` route
 * handlers without our server) and the answers to requests Node's parser refused.
 */
import { randomFillSync } from "node:crypto";

/**
 * Random bytes are drawn 4 KiB at a time and handed out 16 per id: one id is then a slice
 * of a buffer turned to hex, where a UUID with its dashes removed cost a regular
 * expression and two strings per request (docs/performance.md, "Cached reads on Node's
 * request").
 */
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
