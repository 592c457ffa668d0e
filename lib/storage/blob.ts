/**
 * Vercel Blob, for deployments without a persistent disk. Read through our own `/cdn` like
 * every adapter (the store's URLs are never handed out), so privacy and signing work the same.
 */
import { createReadStream } from "node:fs";
import { stat as statFile } from "node:fs/promises";
import { Readable } from "node:stream";
import type { ReadableStream as NodeWebReadableStream } from "node:stream/web";
import { optionalPackage } from "@/lib/config/packages";
import { assertValidKey, assertValidPrefix, assertValidRange, checkPut } from "./keys";
import type { BlobStorageConfig } from "./config";
import { limitBytes, parseContentRange } from "./streams";
import type { ByteRange, ObjectInfo, ObjectStream, Storage } from "./types";

export type { BlobStorageConfig } from "./config";

/** Loaded when a Blob store is configured, not when the server starts (lib/config/packages.ts). */
const { BlobError, BlobNotFoundError, del, get, head, list, put } = optionalPackage<typeof import("@vercel/blob")>("@vercel/blob");

const MiB = 1024 * 1024;
type PutBody = Parameters<typeof put>[1];

/** Normally quoted already; we send them as HTTP ETags. */
function quoteEtag(etag: string): string {
  return /^(W\/)?".*"$/.test(etag) ? etag : `"${etag.replace(/"/g, "")}"`;
}

export class BlobStorage implements Storage {
  readonly kind = "blob" as const;
  private readonly token: string;
  private readonly access: "public" | "private";
  private readonly prefix: string;
  private readonly useCache: boolean;
  private readonly multipartThreshold: number;

  constructor(config: BlobStorageConfig) {
    this.token = config.token;
    this.access = config.access ?? "private";
    const prefix = (config.prefix ?? "").replace(/^\/+/, "");
    this.prefix = prefix && !prefix.endsWith("/") ? `${prefix}/` : prefix;
    this.useCache = config.useCache ?? true;
    this.multipartThreshold = config.multipartThreshold ?? 64 * MiB;
  }

  private pathname(key: string): string {
    assertValidKey(key);
    return this.prefix + key;
  }

  async putFile(key: string, localPath: string, contentType: string): Promise<ObjectInfo> {
    const type = checkPut(key, contentType);
    const { size } = await statFile(localPath);
    const body = createReadStream(localPath);
    try {
      return await this.upload(key, body, type, size >= this.multipartThreshold);
    } finally {
      body.destroy(); // closes the file if the upload failed before reading it all
    }
  }

  async putBuffer(key: string, data: Buffer, contentType: string): Promise<ObjectInfo> {
    return this.upload(key, data, checkPut(key, contentType), false);
  }

  async stat(key: string): Promise<ObjectInfo | null> {
    try {
      const blob = await head(this.pathname(key), { token: this.token });
      return { size: blob.size, contentType: blob.contentType, etag: quoteEtag(blob.etag), lastModified: blob.uploadedAt };
    } catch (error) {
      if (error instanceof BlobNotFoundError) return null;
      throw error;
    }
  }

  async open(key: string, range?: ByteRange): Promise<ObjectStream | null> {
    if (range) assertValidRange(range);
    let result;
    try {
      result = await get(this.pathname(key), {
        access: this.access,
        token: this.token,
        useCache: this.useCache,
        headers: range ? { range: `bytes=${range.start}-${range.end}` } : undefined,
      });
    } catch (error) {
      if (error instanceof BlobError && /\b416\b/.test(error.message)) {
        throw new RangeError(`Range ${range?.start}-${range?.end} not satisfiable for ${key}`);
      }
      throw error;
    }
    if (result?.statusCode !== 200) return null;
    const body = Readable.fromWeb(result.stream as unknown as NodeWebReadableStream<Uint8Array>);
    const meta = {
      contentType: result.blob.contentType,
      etag: quoteEtag(result.blob.etag),
      lastModified: result.blob.uploadedAt,
    };
    if (!range) return { ...meta, size: result.blob.size, body };
    // On a 206 the SDK's `size` is the length of the part; the total is in Content-Range.
    const got = parseContentRange(result.headers.get("content-range"));
    if (got.total === undefined || got.start !== range.start) {
      body.destroy();
      throw new Error(
        `Blob store answered Range ${range.start}-${range.end} of ${key} with ${result.headers.get("content-range") ?? "no Content-Range"}`,
      );
    }
    if (range.start >= got.total) {
      body.destroy();
      throw new RangeError(`Range ${range.start}-${range.end} not satisfiable for ${key} (${got.total} bytes)`);
    }
    const opened = { start: range.start, end: Math.min(range.end, got.total - 1) };
    const length = opened.end - opened.start + 1;
    return { ...meta, size: got.total, body: result.blob.size > length ? limitBytes(body, length) : body, range: opened };
  }

  async delete(key: string): Promise<void> {
    await del(this.pathname(key), { token: this.token });
  }

  /** Vercel Blob lists no unfinished uploads: the object is all there is to delete. */
  async deleteAbandoned(key: string): Promise<void> {
    await this.delete(key);
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertValidPrefix(prefix);
    let cursor: string | undefined;
    do {
      const page = await list({ prefix: this.prefix + prefix, cursor, limit: 1000, token: this.token });
      if (page.blobs.length > 0)
        await del(
          page.blobs.map((b) => b.url),
          { token: this.token },
        );
      cursor = page.hasMore ? page.cursor : undefined;
    } while (cursor);
  }

  private async upload(key: string, body: PutBody, contentType: string, multipart: boolean): Promise<ObjectInfo> {
    await put(this.pathname(key), body, {
      access: this.access,
      token: this.token,
      contentType,
      // Keys are ours and exact: no random suffix, and a re-put replaces (like S3 and disk).
      addRandomSuffix: false,
      allowOverwrite: true,
      multipart,
    });
    const info = await this.stat(key);
    if (!info) throw new Error(`Blob ${key} missing right after it was written`);
    return info;
  }
}
