/**
 * The storage interface every adapter (disk, S3, Vercel Blob) implements. Upload,
 * media and delivery code depend only on this file, never on an adapter.
 */
import type { Readable } from "node:stream";

export type StorageKind = "disk" | "s3" | "blob";

export interface ObjectInfo {
  /** Size of the whole object in bytes (also when a range was opened). */
  size: number;
  contentType: string;
  /** A quoted HTTP entity tag (`"..."`), strong on every adapter, usable for If-Range. */
  etag: string;
  lastModified: Date;
}

/** Both ends inclusive, like HTTP: `{start: 0, end: 0}` is the first byte. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface ObjectStream extends ObjectInfo {
  /**
   * The bytes: the whole object, or exactly `range.end - range.start + 1` bytes when a
   * range was opened. The caller must consume or `destroy()` it (it holds a file
   * descriptor or a socket).
   */
  body: Readable;
  /** The range actually opened (its end clamped to the object), when one was asked for. */
  range?: ByteRange;
}

/** How a client may fetch an object without the service (the redirect delivery mode, docs/delivery-offload.md). */
export type DirectUrlRequest =
  /** A presigned URL valid for `expiresIn` seconds from `now`, with S3's response header overrides. */
  | { kind: "presigned"; expiresIn: number; now: Date; responseHeaders: Readonly<DirectResponseHeaders> }
  /** The object's URL under a public base (the bucket's public endpoint or a CDN in front of it). */
  | { kind: "public"; base: string };

/** The response headers S3 lets a presigned URL set (its `response-*` query parameters). */
export interface DirectResponseHeaders {
  contentType?: string;
  contentDisposition?: string;
  cacheControl?: string;
}

export interface Storage {
  readonly kind: StorageKind;
  /** Store a local file under key (the file stays where it is; caller deletes temp files). Streams; never reads the whole file into memory. */
  putFile(key: string, localPath: string, contentType: string): Promise<ObjectInfo>;
  /** Store a small buffer (thumbnails, avatars, playlists). */
  putBuffer(key: string, data: Buffer, contentType: string): Promise<ObjectInfo>;
  stat(key: string): Promise<ObjectInfo | null>;
  /**
   * Open for reading, optionally a byte range; null when missing. A range whose end lies
   * past the object is clamped; one that starts past the last byte throws a RangeError
   * (callers check ranges against `stat` first, so that is a programming error).
   */
  open(key: string, range?: ByteRange): Promise<ObjectStream | null>;
  /** Idempotent. */
  delete(key: string): Promise<void>;
  /** Deletes every key starting with prefix (HLS segment folders). Idempotent. */
  deletePrefix(prefix: string): Promise<void>;
  /**
   * Deletes `key` and whatever an interrupted put of it may have left (disk: its temp
   * file; S3: unfinished multipart uploads). Only for keys nobody is writing any more: the
   * crash-recovery sweep calls it for uploads of processes that died. Idempotent.
   */
  deleteAbandoned(key: string): Promise<void>;
  /**
   * Disk only: moves the object out of storage to `localPath` (a rename: no byte copied) and
   * forgets it. False when it cannot (missing, or `localPath` on another filesystem); the
   * object is then left as it was. For temporary objects only (a tus upload's chunks).
   */
  moveOut?(key: string, localPath: string): Promise<boolean>;
  /** S3 only: a URL of `key` a client can fetch the bytes from directly. */
  directUrl?(key: string, request: DirectUrlRequest): Promise<string>;
  /**
   * Lets go of what the adapter holds open (disk: the open-file cache's descriptors, up to
   * 256); reads in flight finish. For an adapter that is being replaced; never throws.
   */
  close?(): void;
}
