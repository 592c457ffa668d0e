/** What the page rewrites (page-rewrite.ts) ask of a request before taking it. */
import type { IncomingMessage } from "node:http";

/** A next-auth session cookie (chunked or not, secure or not): a signed-in browser. */
export const SESSION_COOKIE = /(?:^|;\s*)(?:__Secure-)?next-auth\.session-token(?:\.\d+)?=/;

/** Next's own requests (RSC payloads of client navigations, prefetches, server actions) keep Next's path. */
export function isNextDataRequest(req: IncomingMessage): boolean {
  const h = req.headers;
  return Boolean(h.rsc || h["next-router-prefetch"] || h["next-router-state-tree"] || h["next-action"]);
}
