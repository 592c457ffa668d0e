/**
 * Cross-origin use of the API and Relay (docs/cors.md): browser clients on other origins
 * call them with their `api-key` / `relay-key` header. Keys, not cookies, authenticate
 * those calls (the web sign-in cookie is honoured for same-origin requests only,
 * lib/auth/web-session.ts), so `Access-Control-Allow-Origin: *` without credentials is the
 * whole policy: no origin list, no `Vary: Origin`, and a page that asks for credentials is
 * refused by the browser itself.
 *
 * Every value is built once (the preflight's when its dispatcher is made): the dispatcher
 * adds these to each reply without computing anything per request.
 */
import { RATE_LIMIT_HEADER } from "@/lib/ratelimit/headers";
import { KEY_HEADER, type RouteDef } from "./route";

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
 * Request headers a browser may send cross-origin on every route, whatever it declares: the
 * two key headers and the type of a JSON or multipart body.
 */
const FIXED_REQUEST_HEADERS = [KEY_HEADER.api, KEY_HEADER.relay, "content-type"] as const;

/**
 * The request headers a browser may send cross-origin: the fixed ones, then every header a
 * route declares (`RouteDef.headers`: those of POST /upload and /convert, tus's).
 * Derived from the table so there is one list: a route that starts reading a header declares
 * it for its OpenAPI document, and the preflight allows it with no second edit (docs/cors.md).
 */
export function allowedRequestHeaders(routes: readonly RouteDef[]): readonly string[] {
  const names = new Set<string>(FIXED_REQUEST_HEADERS);
  for (const route of routes) for (const name of Object.keys(route.headers ?? {})) names.add(name.toLowerCase());
  return [...names];
}

/**
 * A preflight's answer beside the path's methods (`Access-Control-Allow-Methods`, the same
 * list as `Allow`), built once per dispatcher. Browsers keep it for at most the max-age;
 * 7200 s is Chromium's ceiling.
 */
export function preflightHeaders(routes: readonly RouteDef[]): Readonly<Record<string, string>> {
  return {
    "access-control-allow-headers": allowedRequestHeaders(routes).join(", "),
    "access-control-max-age": "7200",
  };
}
