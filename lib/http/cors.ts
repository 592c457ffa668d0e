/**
 * Cross-origin use of the API and Relay (docs/cors.md): keys, not cookies, authenticate them, so
 * `Access-Control-Allow-Origin: *` without credentials is the whole policy. Values are built once.
 */
import { RATE_LIMIT_HEADER } from "@/lib/ratelimit/headers";
import { KEY_HEADER, type RouteDef } from "./route";

export const ALLOW_ORIGIN = "*";

/** What a client needs beyond the CORS-safelisted headers. */
export const EXPOSE_HEADERS = [
  "request-id",
  RATE_LIMIT_HEADER.retryAfter,
  RATE_LIMIT_HEADER.limit,
  RATE_LIMIT_HEADER.remaining,
  RATE_LIMIT_HEADER.reset,
  "content-disposition",
  "allow",
  // Resumable uploads (docs/resumable-uploads.md): what a browser tus client reads.
  ...[
    "location",
    "tus-resumable",
    "tus-version",
    "tus-extension",
    "tus-max-size",
    "upload-offset",
    "upload-length",
    "upload-metadata",
    "upload-expires",
    "upload-post",
  ],
].join(", ");

const FIXED_REQUEST_HEADERS = [KEY_HEADER.api, KEY_HEADER.relay, "content-type"] as const;

/** Derived from the table, so a route that declares a header for OpenAPI needs no second edit here (docs/cors.md). */
export function allowedRequestHeaders(routes: readonly RouteDef[]): readonly string[] {
  const names = new Set<string>(FIXED_REQUEST_HEADERS);
  for (const route of routes) for (const name of Object.keys(route.headers ?? {})) names.add(name.toLowerCase());
  return [...names];
}

/** A preflight's answer beside the path's methods; 7200 s is Chromium's max-age ceiling. */
export function preflightHeaders(routes: readonly RouteDef[]): Readonly<Record<string, string>> {
  return {
    "access-control-allow-headers": allowedRequestHeaders(routes).join(", "),
    "access-control-max-age": "7200",
  };
}
