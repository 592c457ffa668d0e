/**
 * Sends a stored object as an HTTP response: streaming, single byte ranges (video
 * seeking, resumed downloads, Discord's and browsers' media players), conditional
 * requests, and headers that keep a browser from ever running what we serve. The `/cdn`
 * route decides which key a path maps to and whether the caller may see it, then calls
 * serveObject.
 */
import { attachResponseBody, lazyWebStream } from "../http/node-bridge";
import { errorResponse } from "../http/respond";
import { storage as defaultStorage } from "../storage";
import type { ObjectInfo, ObjectStream, Storage } from "../storage/types";
import { ifRangeAllows, noneMatchHits, notModifiedSince, parseRange, type RangeDecision } from "./conditional";
import { FILE_SECURITY_HEADERS, cacheControl, contentDisposition, resolveType, type ResolvedType } from "./headers";
import { nowSeconds } from "../crypto/signing";

export interface ServeOptions {
  key: string;
  /** The file's type as recorded at upload (the database is the authority, not storage). */
  contentType: string;
  /** Public files: cached for a year. Otherwise private caching (see expiresAt). */
  immutable: boolean;
  /** Name offered to the browser (`Content-Disposition` filename). */
  downloadName?: string;
  /** Type and disposition decided by the file's kind (./kinds.ts), instead of resolveType's. */
  resolved?: ResolvedType;
  /** Signed URLs: the signature's expiry (unix seconds); private caching ends there. */
  expiresAt?: number;
  /** Defaults to the process-wide storage(). */
  storage?: Storage;
  /** Current time in unix seconds (tests). */
  now?: number;
}

const ALLOWED_METHODS = "GET, HEAD";

export async function serveObject(request: Request, opts: ServeOptions): Promise<Response> {
  const method = request.method.toUpperCase();
  if (method !== "GET" && method !== "HEAD") {
    return errorResponse("method_not_allowed", `Use ${ALLOWED_METHODS}`, {
      headers: { allow: ALLOWED_METHODS, ...FILE_SECURITY_HEADERS },
    });
  }
  return attempt(request, method === "HEAD", opts, 0);
}

async function attempt(request: Request, head: boolean, opts: ServeOptions, retry: number): Promise<Response> {
  const store = opts.storage ?? defaultStorage();
  const headers = request.headers;
  const rangeHeader = head ? null : headers.get("range");
  const conditional = headers.has("if-none-match") || headers.has("if-modified-since");

  // The common case, a plain GET, opens directly: one round trip on S3 instead of two.
  if (!head && !rangeHeader && !conditional) {
    const object = await store.open(opts.key);
    return object ? fullResponse(object, opts) : notFound(head);
  }

  const info = await store.stat(opts.key);
  if (!info) return notFound(head);

  // If-None-Match wins over If-Modified-Since, and both over Range (RFC 9110 §13.2.2).
  const notModified = headers.has("if-none-match")
    ? noneMatchHits(headers.get("if-none-match"), info.etag)
    : notModifiedSince(headers.get("if-modified-since"), info.lastModified);
  if (notModified) {
    return new Response(null, { status: 304, headers: validatorHeaders(info, opts) });
  }
  if (head) return new Response(null, { status: 200, headers: entityHeaders(info, opts, info.size) });

  const decision: RangeDecision = ifRangeAllows(headers.get("if-range"), info.etag, info.lastModified)
    ? parseRange(rangeHeader, info.size)
    : { kind: "full" };
  if (decision.kind === "unsatisfiable") {
    const h = validatorHeaders(info, opts);
    h.set("content-range", `bytes */${info.size}`);
    h.set("content-length", "0");
    return new Response(null, { status: 416, headers: h });
  }

  const object = await store.open(opts.key, decision.kind === "partial" ? decision.range : undefined);
  if (!object) return notFound(head);
  if (object.etag !== info.etag) {
    // Replaced between stat and open: our range and validators describe the old bytes.
    // Keys are not normally rewritten, so one retry settles it.
    object.body.destroy();
    if (retry === 0) return attempt(request, head, opts, 1);
    return errorResponse("unavailable", "The file changed while it was being read; retry", {
      headers: { "retry-after": "1", ...FILE_SECURITY_HEADERS },
    });
  }
  if (decision.kind === "full" || !object.range) return fullResponse(object, opts);

  const { start, end } = object.range;
  const h = entityHeaders(object, opts, end - start + 1);
  h.set("content-range", `bytes ${start}-${end}/${object.size}`);
  return streamResponse(object, 206, h);
}

function fullResponse(object: ObjectStream, opts: ServeOptions): Response {
  return streamResponse(object, 200, entityHeaders(object, opts, object.size));
}

/**
 * The custom server pipes the file's Node stream straight to the socket; inside Next the
 * lazy Web stream is read instead. Either way backpressure holds (a slow client does not
 * make us read ahead) and the file closes when the response is cancelled.
 */
function streamResponse(object: ObjectStream, status: number, headers: Headers): Response {
  const response = new Response(lazyWebStream(object.body), { status, headers });
  return attachResponseBody(response, { kind: "stream", stream: object.body });
}

/** What a 304 or 416 repeats from a 200: validators, caching, hardening. */
function validatorHeaders(info: ObjectInfo, opts: ServeOptions): Headers {
  const h = new Headers(FILE_SECURITY_HEADERS);
  h.set("etag", info.etag);
  h.set("last-modified", info.lastModified.toUTCString());
  h.set("cache-control", cacheControl(opts.immutable, opts.expiresAt, opts.now ?? nowSeconds()));
  h.set("accept-ranges", "bytes");
  return h;
}

function entityHeaders(info: ObjectInfo, opts: ServeOptions, contentLength: number): Headers {
  const h = validatorHeaders(info, opts);
  const type = opts.resolved ?? resolveType(opts.contentType);
  h.set("content-type", type.contentType);
  h.set("content-length", String(contentLength));
  if (!type.inline) {
    h.set("content-disposition", contentDisposition("attachment", opts.downloadName ?? baseName(opts.key)));
  } else if (opts.downloadName) {
    h.set("content-disposition", contentDisposition("inline", opts.downloadName));
  }
  return h;
}

const baseName = (key: string): string => key.slice(key.lastIndexOf("/") + 1);

function notFound(head: boolean): Response {
  const headers = { "cache-control": "no-store", ...FILE_SECURITY_HEADERS };
  if (head) return new Response(null, { status: 404, headers });
  return errorResponse("not_found", "File not found", { headers });
}
