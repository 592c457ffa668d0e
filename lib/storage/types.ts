/** The storage interface every adapter implements (docs/storage.md); upload, media and delivery code depend only on this file. */
import type { Readable } from "node:stream";

export type StorageKind = "disk" | "s3" | "blob";

export interface ObjectInfo {
  /** Of the whole object, also when a range was opened. */
  size: number;
  contentType: string;
  /** Strong on every adapter, usable for If-Range. */
  etag: string;
  lastModified: Date;
}

/** Both ends inclusive, like HTTP: `{start: 0, end: 0}` is the first byte. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface ObjectStream extends ObjectInfo {
  /** Exactly the range's bytes when one was opened; the caller must consume or `destroy()` it (it holds a descriptor or a socket). */
  body: Readable;
  /** Its end clamped to the object. */
  range?: ByteRange;
}

/** The redirect delivery mode (docs/delivery-offload.md). */
export type DirectUrlRequest =
  | { kind: "presigned"; expiresIn: number; now: Date; responseHeaders: Readonly<DirectResponseHeaders> }
  | { kind: "public"; base: string };

export interface DirectResponseHeaders {
  contentType?: string;
  contentDisposition?: string;
  cacheControl?: string;
}

export interface Storage {
  readonly kind: StorageKind;
  /** The file stays where it is; streams, never reads it whole into memory. */
  putFile(key: string, localPath: string, contentType: string): Promise<ObjectInfo>;
  putBuffer(key: string, data: Buffer, contentType: string): Promise<ObjectInfo>;
  stat(key: string): Promise<ObjectInfo | null>;
  /** Null when missing; a range's end is clamped, a start past the last byte throws RangeError (callers check against `stat`). */
  open(key: string, range?: ByteRange): Promise<ObjectStream | null>;
  /** Idempotent. */
  delete(key: string): Promise<void>;
  /** Every key starting with prefix. Idempotent. */
  deletePrefix(prefix: string): Promise<void>;
  /** Also what an interrupted put left (temp file, multipart parts): only for keys nobody writes any more (crash recovery). */
  deleteAbandoned(key: string): Promise<void>;
  /** Disk only: renames the object to `localPath` and forgets it; false (object untouched) when it cannot. For temporary objects. */
  moveOut?(key: string, localPath: string): Promise<boolean>;
  directUrl?(key: string, request: DirectUrlRequest): Promise<string>;
  /** Lets go of what the adapter holds open; reads in flight finish. Never throws. */
  close?(): void;
}
