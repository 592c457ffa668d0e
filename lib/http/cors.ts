/**
 * Cross-origin use of the API and Relay (docs/cors.md): browser clients on other origins
 * call them with their `api-key` / `relay-key` header. Keys, not cookies, authenticate
 * those calls (the web sign-in cookie is honoured for same-origin requests only,
 * lib/auth/web-session.ts), so `Access-Control-Allow-Origin: *` without credentials is the
 * whole policy: no origin list, no `Vary: Origin`, and a page that asks for credentials is
 * refused by the browser itself.
 *
 * Every value is a constant, built once: the dispatcher adds these to each reply without
 * computing anything per request.
 */
import { RATE_LIMIT_HEADER } from "../ratelimit/headers";
import { KEY_HEADER } from "./route";

/** `Access-Control-Allow-Origin` of every API and Relay reply, errors included. */
export const ALLOW_ORIGIN = "*";

/**
 * `Access-Control-Expose-Headers` of every reply: what a client needs beyond the
 * CORS-safelisted headers: the id to quote in a report, the rate-limit state and when to
 * retry, an attachment's file name (POST /convert), the methods of a 405.
 */
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

/**
 * The request headers a browser may send cross-origin: the two key headers, JSON and
 * multipart bodies, and every header an endpoint reads (interface.md's upload and convert
 * headers). A route that starts reading another header adds it here.
 */
export const ALLOWED_REQUEST_HEADERS = [
  KEY_HEADER.api,
  KEY_HEADER.relay,
  "content-type",
  "post-privacy",
  "include-metadata",
  "post-type",
  "priority",
  "expires-at",
  "max-views",
  "convert-target",
  // tus (docs/resumable-uploads.md)
  "tus-resumable",
  "upload-length",
  "upload-metadata",
  "upload-offset",
  "upload-defer-length",
] as const;

/**
 * A preflight's answer beside the path's methods (`Access-Control-Allow-Methods`, the same
 * list as `Allow`). Browsers keep it for at most the max-age; 7200 s is Chromium's ceiling.
 */
export const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  "access-control-allow-headers": ALLOWED_REQUEST_HEADERS.join(", "),
  "access-control-max-age": "7200",
};
