/**
 * Sends a stored object as an HTTP response: streaming, single ranges, conditional requests, and
 * headers that keep a browser from running what we serve. With an offload (offload.ts) the bytes
 * of a 200 or 206 are left to the proxy or the bucket.
 */
import { attachResponseBody, lazyWebStream } from "@/lib/http/node-bridge";
import { errorResponse } from "@/lib/http/respond";
import { storage as defaultStorage } from "@/lib/storage";
import type { ObjectInfo, ObjectStream, Storage } from "@/lib/storage/types";
import { ifRangeAllows, noneMatchHits, notModifiedSince, parseRange, type RangeDecision } from "./conditional";
import { FILE_SECURITY_HEADERS, cacheControl, contentDisposition, resolveType, type ResolvedType } from "./headers";
import { nowSeconds } from "@/lib/crypto/signing";
import { configuredOffload, proxyMaySend, redirectSeconds, type Offload, type OffloadPreconditions } from "./offload";

export interface ServeOptions {
  key: string;
  /** As recorded at upload: the database is the authority, not storage. */
  contentType: string;
  immutable: boolean;
  downloadName?: string;
  resolved?: ResolvedType;
  expiresAt?: number;
  storage?: Storage;
  now?: number;
  offload?: Offload;
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
  const handOff = handOffOf(opts.offload ?? configuredOffload(), store);
  const handsOff = (decision: RangeDecision): boolean => handOff !== null && proxyMaySend(preconditionsOf(headers, rangeHeader), decision);

  // The common case, a plain GET, opens directly: one round trip on S3 instead of two
  // (none with a redirect; X-Accel-Redirect needs the validators, so a stat).
  if (!head && !rangeHeader && !conditional) {
    if (handOff?.mode === "redirect" && handsOff(FULL)) return redirectResponse(store, opts, handOff.publicUrl);
    if (!handsOff(FULL)) {
      const object = await store.open(opts.key);
      return object ? fullResponse(object, opts) : notFound(head);
    }
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
  if (handOff && handsOff(decision)) {
    return handOff.mode === "x-accel" ? accelResponse(info, opts, handOff.prefix) : redirectResponse(store, opts, handOff.publicUrl);
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

const FULL: RangeDecision = { kind: "full" };

const preconditionsOf = (headers: Headers, range: string | null): OffloadPreconditions => ({
  range,
  ifRange: headers.get("if-range"),
  ifMatch: headers.get("if-match"),
  ifUnmodifiedSince: headers.get("if-unmodified-since"),
});

function handOffOf(offload: Offload, store: Storage): Exclude<Offload, { mode: "off" }> | null {
  if (offload.mode === "x-accel") return store.kind === "disk" ? offload : null;
  if (offload.mode === "redirect") return store.kind === "s3" && store.directUrl ? offload : null;
  return null;
}

/** Headers only, with `X-Accel-Redirect`: the proxy sends the file or range (docs/delivery-offload.md). */
function accelResponse(info: ObjectInfo, opts: ServeOptions, prefix: string): Response {
  const h = entityHeaders(info, opts, 0);
  h.set("x-accel-redirect", prefix + opts.key);
  return new Response(null, { status: 200, headers: h });
}

/** 302 to the object on S3: presigned with our headers as overrides, or S3_PUBLIC_URL for a public file sent as stored. */
async function redirectResponse(store: Storage, opts: ServeOptions, publicUrl: string | null): Promise<Response> {
  const now = opts.now ?? nowSeconds();
  const type = opts.resolved ?? resolveType(opts.contentType);
  const disposition = dispositionOf(type, opts);
  const cache = cacheControl(opts.immutable, opts.expiresAt, now);
  const h = new Headers(FILE_SECURITY_HEADERS);
  if (publicUrl && opts.immutable && type.inline && !opts.resolved && disposition === null) {
    h.set("location", await store.directUrl!(opts.key, { kind: "public", base: publicUrl }));
    // The same caching the bytes would have: public and immutable.
    h.set("cache-control", cache);
  } else {
    const seconds = redirectSeconds(opts.expiresAt, now);
    const responseHeaders = {
      contentType: type.contentType,
      cacheControl: cache,
      ...(disposition ? { contentDisposition: disposition } : {}),
    };
    h.set(
      "location",
      await store.directUrl!(opts.key, { kind: "presigned", expiresIn: seconds, now: new Date(now * 1000), responseHeaders }),
    );
    // A browser may reuse the redirect while the URL it names is still good for a while.
    h.set("cache-control", `private, max-age=${Math.floor(seconds / 2)}`);
  }
  h.set("content-length", "0");
  return new Response(null, { status: 302, headers: h });
}

function fullResponse(object: ObjectStream, opts: ServeOptions): Response {
  return streamResponse(object, 200, entityHeaders(object, opts, object.size));
}

/** Backpressure holds either way (Node stream in the custom server, lazy Web stream in Next); cancel closes the file. */
function streamResponse(object: ObjectStream, status: number, headers: Headers): Response {
  const response = new Response(lazyWebStream(object.body), { status, headers });
  return attachResponseBody(response, { kind: "stream", stream: object.body });
}

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
  const disposition = dispositionOf(type, opts);
  if (disposition) h.set("content-disposition", disposition);
  return h;
}

function dispositionOf(type: ResolvedType, opts: ServeOptions): string | null {
  if (!type.inline) return contentDisposition("attachment", opts.downloadName ?? baseName(opts.key));
  return opts.downloadName ? contentDisposition("inline", opts.downloadName) : null;
}

const baseName = (key: string): string => key.slice(key.lastIndexOf("/") + 1);

function notFound(head: boolean): Response {
  const headers = { "cache-control": "no-store", ...FILE_SECURITY_HEADERS };
  if (head) return new Response(null, { status: 404, headers });
  return errorResponse("not_found", "File not found", { headers });
}
