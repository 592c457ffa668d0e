/**
 * A request path that is not valid percent-encoded UTF-8 (`/p/%E9`, `/p/%zz`) cannot name
 * any page. Next.js fails to decode such a path into its route parameters and answers 500;
 * the fuzz found it (docs/fuzzing.md). The custom server refuses those paths itself, before
 * Next, with the documented error object: 400 `invalid_request`. The API, Relay and /cdn
 * surfaces decode their own paths (lib/http/router.ts, lib/routes/cdn.ts) and never get here.
 */
import type { ServerResponse } from "node:http";

/** True when the path part of `url` does not percent-decode to UTF-8. */
export function hasMalformedPath(url: string): boolean {
  const query = url.indexOf("?");
  const path = query === -1 ? url : url.slice(0, query);
  try {
    decodeURIComponent(path);
    return false;
  } catch {
    return true;
  }
}

/**
 * The documented error object for a request refused before Next sees it (this file,
 * form-posts.ts). A body still arriving is left to Node, which discards it.
 */
export function refuseBeforeNext(res: ServerResponse, status: number, type: "invalid_request" | "file_too_large", message: string): void {
  const body = JSON.stringify({ error: { type, message } });
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(body)),
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
  });
  res.end(body);
}
