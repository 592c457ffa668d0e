/**
 * The hit path of /cdn/<code>/<name> (thumbnails and renditions too) written straight on Node's
 * request and response: the Web objects and open + fstat + close around every read were most of
 * a small file's time (docs/performance.md, "The /cdn lane and the open-file cache"). It answers
 * only what it can answer exactly as lib/delivery/serve.ts does; everything else goes to the general path.
 */
import { read } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ifRangeAllows, noneMatchHits, notModifiedSince, parseRange } from "@/lib/delivery/conditional";
import { FILE_SECURITY_HEADERS, cacheControl, contentDisposition, publicCacheControl, resolveType } from "@/lib/delivery/headers";
import { parseCdnPath, type CdnTarget } from "@/lib/delivery/cdn-path";
import { decideDelivery } from "@/lib/delivery/decide";
import { configuredOffload, proxyMaySend, type OffloadPreconditions } from "@/lib/delivery/offload";
import { nowSeconds } from "@/lib/crypto/signing";
import { errorBody } from "@/lib/errors";
import { refusalFor } from "@/lib/faults/classify";
import { JSON_TYPE } from "@/lib/http/respond";
import { findDeliverableFile, peekDeliverableFile, type DeliverableFile } from "@/lib/posts/files";
import { storage } from "@/lib/storage";
import { DiskStorage } from "@/lib/storage/disk";
import type { OpenFile } from "@/lib/storage/open-files";

export type CdnFallback = () => Promise<void>;

const FULL = { kind: "full" } as const;

const STREAM_CHUNK = 256 * 1024;
/** Bodies up to this size go in one positioned read and one write; a slow client holds at most this much. */
const SINGLE_READ_MAX = STREAM_CHUNK;

/**
 * Body buffers lent to the next read once the socket has them: a fresh buffer per read grew
 * RSS under range load (docs/performance.md, "Range bodies from reused buffers").
 */
const SPARE_MAX = 64;
const spare: Buffer[] = [];
const lend = (): Buffer => spare.pop() ?? Buffer.allocUnsafeSlow(STREAM_CHUNK);
const giveBack = (buffer: Buffer): void => {
  if (spare.length < SPARE_MAX) spare.push(buffer);
};

/** Segments the URL parser would leave as they are (none empty), or a dot segment it would resolve. */
const PLAIN_PATH = /^[A-Za-z0-9._~!$&'()*+,;=:@%-]+(?:\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*$/;
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:\/|$)/;

type FastTarget = Extract<CdnTarget, { kind: "original" | "thumb" | "rendition" }>;

/** A post's file, thumbnail or rendition on a path the URL parser would not rewrite; else null. */
function fastTarget(path: string): FastTarget | null {
  if (!PLAIN_PATH.test(path) || DOT_SEGMENT.test(path)) return null;
  const target = parseCdnPath(path);
  return target.kind === "original" || target.kind === "thumb" || target.kind === "rendition" ? target : null;
}

/** Serves a /cdn file request; false means not a fast-kind path. Cache misses and non-file answers go to `fallback`. */
export function serveCdnFile(req: IncomingMessage, res: ServerResponse, url: string, fallback: CdnFallback): boolean {
  const method = req.method;
  if (method !== "GET" && method !== "HEAD") return false;
  const store = storage();
  if (!(store instanceof DiskStorage)) return false;
  const q = url.indexOf("?");
  const target = fastTarget(q === -1 ? url.slice(5) : url.slice(5, q));
  if (!target) return false;
  const query = q === -1 ? "" : url.slice(q + 1);

  const file = peekDeliverableFile(target.code, target.name);
  if (file === undefined) {
    findDeliverableFile(target.code, target.name)
      .then((found) => (found ? withFile(req, res, store, target, query, found, fallback) : fallback()))
      .catch((error: unknown) => failed(res, error));
    return true;
  }
  withFile(req, res, store, target, query, file, fallback);
  return true;
}

function general(res: ServerResponse, fallback: CdnFallback): void {
  fallback().catch((error: unknown) => failed(res, error));
}

function withFile(
  req: IncomingMessage,
  res: ServerResponse,
  store: DiskStorage,
  target: FastTarget,
  query: string,
  file: DeliverableFile,
  fallback: CdnFallback,
): void {
  // Text and other files take their headers by kind on the general lane (lib/delivery/kinds.ts).
  if (target.kind === "original" && file.kind !== "media") return general(res, fallback);
  const delivery = decideDelivery(target, query, file);
  // A refusal is answered (and an expired post deleted) by the general lane.
  if (delivery.kind === "refuse") return general(res, fallback);
  const { key, contentType, cacheUntil } = delivery;
  // A rendition not made yet is not on disk: acquire finds nothing and the general path makes it.
  const open = store.openFiles.take(key);
  if (open) return send(req, res, store, open, contentType, cacheUntil);
  store.openFiles
    .acquire(key, store.pathOf(key))
    .then((opened) => (opened ? send(req, res, store, opened, contentType, cacheUntil) : fallback()))
    .catch((error: unknown) => failed(res, error));
}

interface HeaderBlocks {
  validators: Record<string, string>;
  entity: Record<string, string>;
}

function headerBlocks(file: OpenFile, contentType: string): HeaderBlocks {
  // The public caching follows SHARED_CACHE_SECONDS, which may change while the file is open.
  const publicCache = publicCacheControl();
  const memoKey = `headers:${contentType}:${publicCache}`;
  const known = file.memo.get(memoKey) as HeaderBlocks | undefined;
  if (known) return known;
  const validators: Record<string, string> = {
    ...FILE_SECURITY_HEADERS,
    etag: file.etag,
    "last-modified": file.lastModified.toUTCString(),
    "cache-control": publicCache,
    "accept-ranges": "bytes",
  };
  const type = resolveType(contentType);
  const entity: Record<string, string> = { ...validators, "content-type": type.contentType, "content-length": String(file.size) };
  if (!type.inline) entity["content-disposition"] = contentDisposition("attachment", file.key.slice(file.key.lastIndexOf("/") + 1));
  const blocks = { validators, entity };
  file.memo.set(memoKey, blocks);
  return blocks;
}

function accelBlock(file: OpenFile, contentType: string, prefix: string): Record<string, string> {
  const memoKey = `accel:${contentType}:${prefix}:${publicCacheControl()}`;
  const known = file.memo.get(memoKey) as Record<string, string> | undefined;
  if (known) return known;
  const block = { ...headerBlocks(file, contentType).entity, "content-length": "0", "x-accel-redirect": prefix + file.key };
  file.memo.set(memoKey, block);
  return block;
}

/** The X-Accel-Redirect prefix when the proxy may send this request's bytes; else null. */
function accelPrefix(req: IncomingMessage, range: string | undefined, decision: Parameters<typeof proxyMaySend>[1]): string | null {
  const offload = configuredOffload();
  if (offload.mode !== "x-accel") return null;
  const h = req.headers;
  const preconditions: OffloadPreconditions = {
    range,
    ifRange: h["if-range"],
    ifMatch: h["if-match"],
    ifUnmodifiedSince: h["if-unmodified-since"],
  };
  return proxyMaySend(preconditions, decision) ? offload.prefix : null;
}

const privately = (block: Record<string, string>, expiresAt: number | undefined): Record<string, string> =>
  expiresAt === undefined ? block : { ...block, "cache-control": cacheControl(false, expiresAt, nowSeconds()) };

function send(
  req: IncomingMessage,
  res: ServerResponse,
  store: DiskStorage,
  file: OpenFile,
  contentType: string,
  expiresAt: number | undefined,
): void {
  const blocks = headerBlocks(file, contentType);
  const headers = req.headers;
  const head = req.method === "HEAD";
  const range = head ? undefined : headers.range;
  const ifNoneMatch = headers["if-none-match"];
  const ifModifiedSince = headers["if-modified-since"];

  if (!head && range === undefined && ifNoneMatch === undefined && ifModifiedSince === undefined) {
    const prefix = accelPrefix(req, range, FULL);
    if (prefix !== null) return bodiless(res, store, file, 200, privately(accelBlock(file, contentType, prefix), expiresAt));
    res.writeHead(200, privately(blocks.entity, expiresAt));
    return body(res, store, file, 0, file.size - 1);
  }
  // Exactly lib/delivery/serve.ts's order: If-None-Match wins over If-Modified-Since, and
  // both over Range (RFC 9110 §13.2.2).
  const notModified =
    ifNoneMatch !== undefined ? noneMatchHits(ifNoneMatch, file.etag) : notModifiedSince(ifModifiedSince ?? null, file.lastModified);
  if (notModified) return bodiless(res, store, file, 304, privately(blocks.validators, expiresAt));
  if (head) return bodiless(res, store, file, 200, privately(blocks.entity, expiresAt));
  const ifRange = headers["if-range"];
  const decision = ifRangeAllows(typeof ifRange === "string" ? ifRange : null, file.etag, file.lastModified)
    ? parseRange(range ?? null, file.size)
    : ({ kind: "full" } as const);
  if (decision.kind === "unsatisfiable") {
    return bodiless(res, store, file, 416, {
      ...privately(blocks.validators, expiresAt),
      "content-range": `bytes */${file.size}`,
      "content-length": "0",
    });
  }
  const prefix = accelPrefix(req, range, decision);
  if (prefix !== null) return bodiless(res, store, file, 200, privately(accelBlock(file, contentType, prefix), expiresAt));
  if (decision.kind === "full") {
    res.writeHead(200, privately(blocks.entity, expiresAt));
    return body(res, store, file, 0, file.size - 1);
  }
  const { start, end } = decision.range;
  res.writeHead(206, {
    ...privately(blocks.entity, expiresAt),
    "content-length": String(end - start + 1),
    "content-range": `bytes ${start}-${end}/${file.size}`,
  });
  body(res, store, file, start, end);
}

function bodiless(res: ServerResponse, store: DiskStorage, file: OpenFile, status: number, headers: Record<string, string>): void {
  store.openFiles.release(file);
  res.writeHead(status, headers);
  res.end();
}

function body(res: ServerResponse, store: DiskStorage, file: OpenFile, start: number, end: number): void {
  const length = end - start + 1;
  if (length <= 0) {
    store.openFiles.release(file);
    res.end();
    return;
  }
  if (length <= SINGLE_READ_MAX) {
    const buffer = lend();
    read(file.fd, buffer, 0, length, start, (error, bytes) => {
      store.openFiles.release(file);
      // A short read means the file shrank under us (it should not: keys are immutable);
      // the declared length cannot be honoured, so the connection is cut.
      if (error || bytes !== length) {
        giveBack(buffer);
        res.destroy();
      } else {
        res.end(buffer.subarray(0, length), () => giveBack(buffer));
      }
    });
    return;
  }
  pump(res, store, file, start, end);
}

/**
 * Streams with backpressure from the cache's shared descriptor. Not fs.createReadStream:
 * destroying one closes its descriptor whatever `autoClose` says, and a closed number reused by
 * another file would be read or closed again. Released once, never while a read is in flight.
 */
function pump(res: ServerResponse, store: DiskStorage, file: OpenFile, start: number, end: number): void {
  let position = start;
  let reading = false;
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    store.openFiles.release(file);
  };
  const next = (): void => {
    const length = Math.min(STREAM_CHUNK, end - position + 1);
    const buffer = lend();
    const done = (): void => giveBack(buffer);
    reading = true;
    read(file.fd, buffer, 0, length, position, (error, bytes) => {
      reading = false;
      if (res.destroyed) {
        done();
        return release();
      }
      if (error || bytes !== length) {
        done();
        release();
        res.destroy();
        return;
      }
      position += bytes;
      const piece = buffer.subarray(0, length);
      if (position > end) {
        release();
        res.end(piece, done);
      } else if (res.write(piece, done)) {
        next();
      } else {
        res.once("drain", next);
      }
    });
  };
  res.once("close", () => {
    if (!reading) release();
  });
  next();
}

function failed(res: ServerResponse, error: unknown): void {
  const refused = refusalFor(error);
  if (refused && !res.headersSent) {
    // A dependency away (docs/faults.md): the JSON 503 the general lane answers too.
    const body = JSON.stringify(errorBody("unavailable", refused.message));
    res.writeHead(503, {
      "content-type": JSON_TYPE,
      "content-length": String(Buffer.byteLength(body)),
      "retry-after": String(refused.retryAfter),
      "cache-control": "no-store",
    });
    res.end(body);
    return;
  }
  if (!refused) console.error("cdn request failed", error);
  if (!res.headersSent) {
    res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
    res.end("Internal Server Error");
  } else {
    res.destroy();
  }
}
