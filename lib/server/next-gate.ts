/**
 * What the custom server refuses before a request reaches Next.js, because Next would
 * answer it with a 500 (all found by the fuzz, docs/fuzzing.md). The API, Relay and /cdn
 * surfaces never get here: the fast lane serves them with their own checks
 * (lib/http/router.ts, lib/routes/cdn.ts).
 *
 * - A path that is not valid percent-encoded UTF-8 (`/p/%E9`, `/p/%zz`) names no page;
 *   Next fails to decode it into route parameters. 400 `invalid_request`.
 * - A method outside HTTP's usual set (TRACE, WebDAV's, made-up ones): Next's
 *   route handlers and proxy build a Fetch `Request`, which throws on TRACE. 405
 *   `method_not_allowed` with `Allow`, as the API answers a method it does not serve.
 * - Multipart form posts Next cannot parse: form-posts.ts.
 */
import type { ServerResponse } from "node:http";
import { errorBody } from "@/lib/errors";

/** Methods pages and Next's route handlers may be asked with. */
export const NEXT_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

export const isNextMethod = (method: string | undefined): boolean => (NEXT_METHODS as readonly string[]).includes(method ?? "");

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
export function refuseBeforeNext(
  res: ServerResponse,
  status: number,
  type: "invalid_request" | "file_too_large" | "method_not_allowed" | "not_found",
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(errorBody(type, message));
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(body)),
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
  });
  res.end(body);
}
