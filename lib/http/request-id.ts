/**
 * The request id every reply carries (docs/http-core.md): 32 random hex characters, made
 * here only, for the custom server, the dispatcher (in-process calls and `next dev` route
 * handlers without our server) and the answers to requests Node's parser refused.
 */
import { randomUUID } from "node:crypto";

export const newRequestId = (): string => randomUUID().replace(/-/g, "");
