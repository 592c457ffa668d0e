/**
 * The hit path of /cdn/<code>/<name> (and its thumbnail and stored renditions) written straight on Node's
 * request and response: no Web Request, Response, Headers or AbortSignal, no promise when
 * the delivery cache and the open-file cache both hold the file, header blocks built once
 * per file. Profiled before this (docs/performance.md, "Read path under wrk"), those
 * objects and the open + fstat + close around every read were most of a small file's time.
 *
 * It answers only what it can answer exactly as lib/routes/cdn.ts and lib/delivery/serve.ts
 * do: a found, deliverable file (signature checked for hidden posts, not under moderation)
 * on disk storage, GET or HEAD, with 200, 206, 304 or 416, using the same pure functions
 * for Range and the validators (lib/delivery/conditional.ts) and the same headers
 * (lib/delivery/headers.ts). Everything else (errors, other storage, user media, HLS,
 * unusual paths) goes to the general path, which decides as it always did.
 */
import { read } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ifRangeAllows, noneMatchHits, notModifiedSince, parseRange } from "../delivery/conditional";
import { FILE_SECURITY_HEADERS, PUBLIC_CACHE_CONTROL, cacheControl, contentDisposition, resolveType } from "../delivery/headers";
import { nowSeconds, verifySignature } from "../crypto/signing";
import { cacheableUntil, deliverableExpired, findDeliverableFile, peekDeliverableFile, type DeliverableFile } from "../posts/files";
import { parseRenditionSegments, renditionKey, renditionSourceKey, type RenditionWidth } from "../renditions";
import { storage } from "../storage";
import { DiskStorage } from "../storage/disk";
import type { OpenFile } from "../storage/open-files";

/** Serves the request on the general path (lib/routes/cdn.ts). */
export type CdnFallback = () => Promise<void>;

/** Chunk size of streamed bodies (a 1 MiB range is 4 reads). */
const STREAM_CHUNK = 256 * 1024;
/**
 * Bodies up to this size are read with one positioned read and written in one piece;
 * larger ones stream with backpressure. A slow client holds at most this much of ours.
 * Both read into the lent buffers below, so it is one chunk.
 */
const SINGLE_READ_MAX = STREAM_CHUNK;

/**
 * Body buffers of STREAM_CHUNK bytes, taken back once the socket has them (the write's
 * callback) and lent to the next read. A fresh 256 KiB buffer per read was memory outside
 * V8's heap that only a garbage collection gave back: under range load the server's RSS
 * grew with it and the collector ran for it (docs/performance.md, "Range bodies from
 * reused buffers"). At most SPARE_MAX wait here (16 MiB).
 */
const SPARE_MAX = 64;
const spare: Buffer[] = [];
const lend = (): Buffer => spare.pop() ?? Buffer.allocUnsafeSlow(STREAM_CHUNK);
const giveBack = (buffer: Buffer): void => {
  if (spare.length < SPARE_MAX) spare.push(buffer);
};

/** A path segment the general path's URL parser would leave exactly as it is. */
const PLAIN_SEGMENT = /^[A-Za-z0-9._~!$&'()*+,;=:@%-]+$/;

interface Target {
  code: string;
  name: string;
  thumb: boolean;
  /** A rendition's width (docs/renditions.md); null for the file or its thumbnail. */
  width: RenditionWidth | null;
  /** The path after `/cdn/`, as the signature covers it. */
  signedPath: string;
  query: string;
}

/**
 * `/cdn/<code>/<name>`, `/cdn/<code>/thumbs/<name>.jpg` or `/cdn/<code>/r/<width>/<name>.webp`;
 * null for anything else (bad rendition widths too: the general path answers those).
 */
function parseTarget(url: string): Target | null {
  const q = url.indexOf("?");
  const path = q === -1 ? url.slice(5) : url.slice(5, q);
  const segments = path.split("/");
  const thumb = segments.length === 3 && segments[1] === "thumbs" && segments[2].endsWith(".jpg");
  const rendition = segments.length === 4 && segments[1] === "r";
  if (segments.length !== 2 && !thumb && !rendition) return null;
  if (segments[0] === "u") return null; // user media: the general path
  const decoded: string[] = [];
  for (const segment of segments) {
    if (!PLAIN_SEGMENT.test(segment) || segment === "." || segment === "..") return null;
    try {
      decoded.push(segment.indexOf("%") === -1 ? segment : decodeURIComponent(segment));
    } catch {
      return null;
    }
  }
  if (rendition) {
    const parsed = parseRenditionSegments(decoded.slice(1));
    if (parsed?.kind !== "rendition") return null;
    return {
      code: decoded[0],
      name: parsed.name,
      thumb: false,
      width: parsed.width,
      signedPath: path,
      query: q === -1 ? "" : url.slice(q + 1),
    };
  }
  return {
    code: decoded[0],
    name: thumb ? decoded[2].slice(0, -".jpg".length) : decoded[1],
    thumb,
    width: null,
    signedPath: path,
    query: q === -1 ? "" : url.slice(q + 1),
  };
}

/**
 * Serves `req` when it is a /cdn file request; false means "not a file path of the
 * fast kind", and the caller uses the general path. Misses of either cache and every
 * answer other than a file go to `fallback`.
 */
export function serveCdnFile(req: IncomingMessage, res: ServerResponse, url: string, fallback: CdnFallback): boolean {
  const method = req.method;
  if (method !== "GET" && method !== "HEAD") return false;
  const store = storage();
  if (!(store instanceof DiskStorage)) return false;
  const target = parseTarget(url);
  if (!target) return false;

  const file = peekDeliverableFile(target.code, target.name);
  if (file === undefined) {
    findDeliverableFile(target.code, target.name)
      .then((found) => (found ? withFile(req, res, store, target, found, fallback) : fallback()))
      .catch((error: unknown) => failed(res, error));
    return true;
  }
  withFile(req, res, store, target, file, fallback);
  return true;
}

/** Hands the request to the general path, which gives the answer it always gave (404, 403...). */
function general(res: ServerResponse, fallback: CdnFallback): void {
  fallback().catch((error: unknown) => failed(res, error));
}

function withFile(
  req: IncomingMessage,
  res: ServerResponse,
  store: DiskStorage,
  target: Target,
  file: DeliverableFile,
  fallback: CdnFallback,
): void {
  if (target.thumb && !file.thumbnailKey) return general(res, fallback);
  // Text and other files take their headers by kind on the general path (lib/delivery/kinds.ts).
  if (!target.thumb && !target.width && file.kind !== "media") return general(res, fallback);
  if (target.width && !renditionSourceKey(file)) return general(res, fallback);
  if (file.moderated || deliverableExpired(file)) return general(res, fallback);
  let expiresAt: number | undefined;
  if (file.signed) {
    const params = new URLSearchParams(target.query);
    const exp = params.get("exp") ?? "";
    if (!verifySignature(target.signedPath, exp, params.get("sig") ?? "")) return general(res, fallback);
    expiresAt = Number(exp);
  }
  expiresAt = cacheableUntil(file, expiresAt);
  // A rendition not made yet is not on disk: acquire finds nothing and the general path makes it.
  const key = target.width ? renditionKey(file.storageKey, target.width) : target.thumb ? file.thumbnailKey! : file.storageKey;
  const contentType = target.width ? "image/webp" : target.thumb ? "image/jpeg" : file.mimeType;
  const open = store.openFiles.take(key);
  if (open) return send(req, res, store, open, contentType, expiresAt);
  store.openFiles
    .acquire(key, store.pathOf(key))
    .then((opened) => (opened ? send(req, res, store, opened, contentType, expiresAt) : fallback()))
    .catch((error: unknown) => failed(res, error));
}

/** The 200 headers of a file for one content type: built once per open file. */
interface HeaderBlocks {
  /** What a 304 or 416 repeats: validators, caching, hardening (cache-control per request when signed). */
  validators: Record<string, string>;
  /** Validators plus type, length and disposition: the 200. */
  entity: Record<string, string>;
}

function headerBlocks(file: OpenFile, contentType: string): HeaderBlocks {
  const memoKey = `headers:${contentType}`;
  const known = file.memo.get(memoKey) as HeaderBlocks | undefined;
  if (known) return known;
  const validators: Record<string, string> = {
    ...FILE_SECURITY_HEADERS,
    etag: file.etag,
    "last-modified": file.lastModified.toUTCString(),
    "cache-control": PUBLIC_CACHE_CONTROL,
    "accept-ranges": "bytes",
  };
  const type = resolveType(contentType);
  const entity: Record<string, string> = { ...validators, "content-type": type.contentType, "content-length": String(file.size) };
  if (!type.inline) entity["content-disposition"] = contentDisposition("attachment", file.key.slice(file.key.lastIndexOf("/") + 1));
  const blocks = { validators, entity };
  file.memo.set(memoKey, blocks);
  return blocks;
}

/** A signed file's blocks with its own cache-control (it ends with the signature). */
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

/** Bytes start..end (inclusive) of the file to the response; the file is released when done. */
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
 * Streams a long body from the shared descriptor, one chunk at a time, waiting for
 * 'drain' (backpressure). Not fs.createReadStream: destroying one (a client that leaves
 * mid-body) closes its descriptor whatever `autoClose` says, and this descriptor belongs
 * to the cache; a closed number reused by another file or socket would then be read or
 * closed again. The file is released exactly once, never while a read is in flight.
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
  console.error("cdn request failed", error);
  if (!res.headersSent) {
    res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
    res.end("Internal Server Error");
  } else {
    res.destroy();
  }
}
