/**
 * Reading objects this service did not write (another host's bucket, for an import:
 * docs/migrate.md): any key as the other host named it (spaces, Unicode), so the key rules
 * of keys.ts, which are about our own keys, do not apply. Read-only: a size, and the bytes
 * streamed to a local file (a retry starts the download again from the first byte).
 */
import { createWriteStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { GetObjectCommand, HeadBucketCommand, HeadObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type { S3StorageConfig } from "./config";
import { httpStatusOf, withRetries } from "./retry";
import { createS3Client, isNotFound, toReadable } from "./s3";

export class ForeignBucket {
  private readonly client: S3Client;

  constructor(
    readonly bucket: string,
    config: Omit<S3StorageConfig, "bucket" | "prefix">,
  ) {
    this.client = config.client ?? createS3Client({ ...config, bucket });
  }

  /**
   * Whether the bucket is there: "missing" on a 404, "forbidden" when the credentials may not
   * list it (reading objects may still be allowed); other failures (a wrong endpoint) throw.
   */
  async check(): Promise<"ok" | "missing" | "forbidden"> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      return "ok";
    } catch (error) {
      const status = httpStatusOf(error);
      if (status === 404) return "missing";
      if (status === 403) return "forbidden";
      throw error;
    }
  }

  /** The object's size, or null when there is no such object (a missing bucket throws). */
  async size(key: string): Promise<number | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return head.ContentLength ?? 0;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  /** Writes the object's bytes to `localPath` (replaced), streamed. */
  async download(key: string, localPath: string): Promise<void> {
    await withRetries(async () => {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      await pipeline(toReadable(object.Body), createWriteStream(localPath));
    });
  }

  close(): void {
    this.client.destroy();
  }
}
