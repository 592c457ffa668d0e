/**
 * S3-compatible storage (docs/storage.md). Files stream from disk: one PutObject, or a
 * multipart upload of ranged reads (memory stays flat) aborted on failure so no orphan parts
 * are billed. Streamed requests are retried here with a fresh read (retry.ts): the SDK does not
 * retry streaming bodies.
 */
import { createReadStream, type ReadStream } from "node:fs";
import { stat as statFile } from "node:fs/promises";
import { Readable } from "node:stream";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type CompletedPart,
  type PutObjectCommandInput,
} from "@aws-sdk/client-s3";
import { assertValidKey, assertValidPrefix, checkPut, assertValidRange } from "./keys";
import type { S3StorageConfig } from "./config";
import { httpStatusOf, withRetries } from "./retry";
import { storing } from "@/lib/faults/classify";
import { limitBytes, parseContentRange } from "./streams";
import { presignGet } from "./presign";
import type { ByteRange, DirectResponseHeaders, DirectUrlRequest, ObjectInfo, ObjectStream, Storage } from "./types";

export type { S3StorageConfig } from "./config";

const MiB = 1024 * 1024;

export function createS3Client(config: S3StorageConfig): S3Client {
  const { accessKeyId, secretAccessKey } = config;
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    throw new Error("Set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither");
  }
  return new S3Client({
    region: config.region || "us-east-1",
    endpoint: config.endpoint,
    forcePathStyle: config.forcePathStyle ?? Boolean(config.endpoint),
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    // The SDK's default CRC trailers are stored as part of the object by several S3-compatible servers.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

/** A request whose body is `length` bytes of a file from `start`, a new stream per try so a retry resends the same bytes. */
async function sendFileRange<T>(
  localPath: string,
  start: number,
  length: number,
  send: (body: ReadStream | Buffer, length: number) => Promise<T>,
): Promise<T> {
  // createReadStream has no empty range (`end` is inclusive); the SDK retries a buffer itself.
  if (length === 0) return send(Buffer.alloc(0), 0);
  return withRetries(async () => {
    const body = createReadStream(localPath, { start, end: start + length - 1 });
    try {
      return await send(body, length);
    } finally {
      body.destroy(); // closes the file if the request failed before reading it all
    }
  });
}

export function isNotFound(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name;
  // A missing bucket is a configuration error; HeadObject cannot tell it from a missing object, GetObject can.
  if (name === "NoSuchBucket") return false;
  return httpStatusOf(error) === 404 || name === "NotFound" || name === "NoSuchKey";
}

function overrides(headers: Readonly<DirectResponseHeaders>): Record<string, string> {
  const query: Record<string, string> = {};
  if (headers.contentType) query["response-content-type"] = headers.contentType;
  if (headers.contentDisposition) query["response-content-disposition"] = headers.contentDisposition;
  if (headers.cacheControl) query["response-cache-control"] = headers.cacheControl;
  return query;
}

export function toReadable(body: unknown): Readable {
  if (body instanceof Readable) return body;
  if (body && typeof (body as ReadableStream).getReader === "function") {
    return Readable.fromWeb(body as import("node:stream/web").ReadableStream);
  }
  throw new Error("Unexpected S3 response body type");
}

export class S3Storage implements Storage {
  readonly kind = "s3" as const;
  readonly client: S3Client;
  readonly bucket: string;
  private readonly prefix: string;
  private readonly multipartThreshold: number;
  private readonly partSize: number;
  private readonly partConcurrency: number;
  private readonly region: string;
  private readonly endpoint: URL | null;
  private readonly pathStyle: boolean;

  constructor(config: S3StorageConfig) {
    this.client = config.client ?? createS3Client(config);
    this.bucket = config.bucket;
    const prefix = (config.prefix ?? "").replace(/^\/+/, "");
    this.prefix = prefix && !prefix.endsWith("/") ? `${prefix}/` : prefix;
    this.multipartThreshold = config.multipartThreshold ?? 64 * MiB;
    this.partSize = config.partSize ?? 16 * MiB;
    this.partConcurrency = Math.max(1, config.partConcurrency ?? 4);
    this.region = config.region || "us-east-1";
    this.endpoint = config.endpoint ? new URL(config.endpoint) : null;
    this.pathStyle = config.forcePathStyle ?? Boolean(config.endpoint);
  }

  /** A URL of the object for a client (docs/delivery-offload.md): presigned, or under a public base URL. */
  async directUrl(key: string, request: DirectUrlRequest): Promise<string> {
    const path = this.s3Key(key).split("/").map(encodeURIComponent).join("/");
    if (request.kind === "public") return `${request.base}/${path}`;
    const credentials = await this.client.config.credentials();
    return presignGet({
      url: this.objectUrl(path),
      region: this.region,
      credentials,
      expiresIn: request.expiresIn,
      now: request.now,
      query: overrides(request.responseHeaders),
    });
  }

  private objectUrl(path: string): string {
    const bucket = encodeURIComponent(this.bucket);
    if (this.endpoint) {
      const base = this.endpoint.href.replace(/\/+$/, "");
      return this.pathStyle ? `${base}/${bucket}/${path}` : `${this.endpoint.protocol}//${bucket}.${this.endpoint.host}/${path}`;
    }
    // A bucket name with dots does not match AWS's wildcard certificate: path style, as the SDK does.
    if (this.pathStyle || this.bucket.includes(".")) return `https://s3.${this.region}.amazonaws.com/${bucket}/${path}`;
    return `https://${bucket}.s3.${this.region}.amazonaws.com/${path}`;
  }

  private s3Key(key: string): string {
    assertValidKey(key);
    return this.prefix + key;
  }

  async putFile(key: string, localPath: string, contentType: string): Promise<ObjectInfo> {
    const type = checkPut(key, contentType);
    const { size } = await statFile(localPath);
    // A store that is full (a quota) or away is the 503 of docs/faults.md.
    await storing(async () => {
      if (size >= this.multipartThreshold) {
        await this.multipartUpload(key, localPath, size, type);
      } else {
        // ContentLength lets the SDK stream the file instead of buffering it to measure it.
        await sendFileRange(localPath, 0, size, (Body, ContentLength) => this.put(key, { Body, ContentLength, ContentType: type }));
      }
    }, true);
    return this.statOrThrow(key);
  }

  async putBuffer(key: string, data: Buffer, contentType: string): Promise<ObjectInfo> {
    const type = checkPut(key, contentType);
    await storing(() => this.put(key, { Body: data, ContentLength: data.length, ContentType: type }), true);
    return this.statOrThrow(key);
  }

  async stat(key: string): Promise<ObjectInfo | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.s3Key(key) }));
      return {
        size: head.ContentLength ?? 0,
        contentType: head.ContentType || "application/octet-stream",
        etag: head.ETag ?? '""',
        lastModified: head.LastModified ?? new Date(0),
      };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async open(key: string, range?: ByteRange): Promise<ObjectStream | null> {
    if (range) assertValidRange(range);
    let response;
    try {
      response = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.s3Key(key),
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
    } catch (error) {
      if (isNotFound(error)) return null;
      if (httpStatusOf(error) === 416) throw new RangeError(`Range ${range?.start}-${range?.end} not satisfiable for ${key}`);
      throw error;
    }
    const body = toReadable(response.Body);
    const meta = {
      contentType: response.ContentType || "application/octet-stream",
      etag: response.ETag ?? '""',
      lastModified: response.LastModified ?? new Date(0),
    };
    if (!range) return { ...meta, size: response.ContentLength ?? 0, body };
    const got = parseContentRange(response.ContentRange);
    if (got.total === undefined || got.start !== range.start) {
      // A server that ignores Range would hand us the whole object as if it were the range.
      body.destroy();
      throw new Error(`S3 server answered Range ${range.start}-${range.end} of ${key} with ${response.ContentRange ?? "no Content-Range"}`);
    }
    if (range.start >= got.total) {
      body.destroy();
      throw new RangeError(`Range ${range.start}-${range.end} not satisfiable for ${key} (${got.total} bytes)`);
    }
    const opened = { start: range.start, end: Math.min(range.end, got.total - 1) };
    const length = opened.end - opened.start + 1;
    return {
      ...meta,
      size: got.total,
      // Trusting our own arithmetic over the server's: never more bytes than asked for.
      body: (response.ContentLength ?? 0) > length ? limitBytes(body, length) : body,
      range: opened,
    };
  }

  async delete(key: string): Promise<void> {
    // S3 answers 204 for missing keys too: idempotent by nature.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.s3Key(key) }));
  }

  async deleteAbandoned(key: string): Promise<void> {
    await this.delete(key);
    const Key = this.s3Key(key);
    // A cut-off multipart upload leaves billed, invisible parts (servers without ListMultipartUploads show none).
    const page = await this.client
      .send(new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: Key }))
      .catch(() => ({ Uploads: [] }));
    for (const upload of page.Uploads ?? []) {
      if (upload.Key !== Key || !upload.UploadId) continue;
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key, UploadId: upload.UploadId }));
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertValidPrefix(prefix);
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix + prefix, ContinuationToken: token }),
      );
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (keys.length > 0) {
        const result = await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys, Quiet: true } }));
        const failed = (result.Errors ?? []).filter((e) => e.Code !== "NoSuchKey");
        if (failed.length > 0) {
          throw new Error(
            `S3 DeleteObjects failed for ${failed.length} keys, e.g. ${failed[0].Key}: ${failed[0].Code} ${failed[0].Message}`,
          );
        }
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  private async put(key: string, input: Omit<PutObjectCommandInput, "Bucket" | "Key">): Promise<void> {
    await this.client.send(new PutObjectCommand({ ...input, Bucket: this.bucket, Key: this.s3Key(key) }));
  }

  private async statOrThrow(key: string): Promise<ObjectInfo> {
    const info = await this.stat(key);
    if (!info) throw new Error(`S3 object ${key} missing right after it was written`);
    return info;
  }

  private async multipartUpload(key: string, localPath: string, size: number, contentType: string): Promise<void> {
    const Key = this.s3Key(key);
    const created = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key, ContentType: contentType }));
    const UploadId = created.UploadId;
    if (!UploadId) throw new Error("S3 CreateMultipartUpload returned no UploadId");
    try {
      const count = Math.ceil(size / this.partSize);
      const parts: CompletedPart[] = new Array(count);
      let next = 0;
      let failure: { error: unknown } | undefined;
      // A few workers pull part numbers until none are left. After a failure the others stop, and we
      // wait for them before aborting so no part lands after the abort.
      const worker = async (): Promise<void> => {
        while (next < count && !failure) {
          const index = next++;
          const start = index * this.partSize;
          const end = Math.min(size, start + this.partSize) - 1;
          try {
            const result = await sendFileRange(localPath, start, end - start + 1, (Body, ContentLength) =>
              this.client.send(new UploadPartCommand({ Bucket: this.bucket, Key, UploadId, PartNumber: index + 1, Body, ContentLength })),
            );
            parts[index] = { ETag: result.ETag, PartNumber: index + 1 };
          } catch (error) {
            failure ??= { error };
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(this.partConcurrency, count) }, worker));
      if (failure) throw failure.error;
      await this.client.send(new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key, UploadId, MultipartUpload: { Parts: parts } }));
    } catch (error) {
      // Uploaded parts are stored (and billed) until the upload is aborted.
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key, UploadId })).catch(() => undefined);
      throw error;
    }
  }
}
