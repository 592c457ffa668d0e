/**
 * What the custom server refuses before Next.js, which would answer a 500 (found by the fuzz,
 * docs/fuzzing.md): a path not percent-decoding to UTF-8 (400), a method outside the usual set
 * (Next's Fetch `Request` throws on TRACE; 405), unparsable form posts (form-posts.ts).
 */
import type { ServerResponse } from "node:http";
import { errorBody } from "@/lib/errors";

export const NEXT_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

export const isNextMethod = (method: string | undefined): boolean => (NEXT_METHODS as readonly string[]).includes(method ?? "");

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

/** The error object for a request refused before Next; a body still arriving is left to Node. */
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
