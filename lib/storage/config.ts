/**
 * Adapter configuration read from the environment. Kept apart from the adapters so that
 * `storage()` can validate the configuration at start-up without loading the S3 or Blob
 * SDKs (slow to import: docs/performance.md, "Settings and their measured reasons") in
 * processes that never touch them.
 */
import type { S3Client } from "@aws-sdk/client-s3";
import { parseEnv } from "@/lib/config/env";

export interface S3StorageConfig {
  bucket: string;
  /** Default us-east-1 (also what most S3-compatible servers accept). */
  region?: string;
  /** For S3-compatible servers, e.g. `http://127.0.0.1:9000`. Unset for AWS. */
  endpoint?: string;
  /** Both or neither; neither uses the SDK's default credential chain (IAM roles etc.). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** `bucket` in the path instead of the host name. Defaults to true when `endpoint` is set. */
  forcePathStyle?: boolean;
  /** Prepended to every key (`mediahost/` → `mediahost/f/...`), to share a bucket. */
  prefix?: string;
  /** Files of at least this many bytes use multipart upload. Default 64 MiB. */
  multipartThreshold?: number;
  /** Multipart part size. Default 16 MiB; S3 needs at least 5 MiB (except the last). */
  partSize?: number;
  /** Parts uploaded at once. Default 4. */
  partConcurrency?: number;
  /** A ready client (tests); otherwise one is built from the fields above. */
  client?: S3Client;
}

/** The S3_* variables (parsed in lib/config/env.ts) and the combinations they must make. */
export function s3ConfigFromEnv(source: Readonly<Record<string, string | undefined>> = process.env): S3StorageConfig {
  const env = parseEnv(source);
  const bucket = env.S3_BUCKET;
  if (!bucket) throw new Error("STORAGE=s3 needs S3_BUCKET");
  if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY)) {
    throw new Error("Set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither");
  }
  return {
    bucket,
    region: env.S3_REGION,
    endpoint: env.S3_ENDPOINT,
    accessKeyId: env.S3_ACCESS_KEY_ID,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY,
    forcePathStyle: env.S3_FORCE_PATH_STYLE,
    prefix: env.S3_PREFIX,
  };
}

/**
 * Vercel Blob: BLOB_READ_WRITE_TOKEN (required), BLOB_ACCESS (`private`, the default, for
 * a private store; `public` for a public store), BLOB_PREFIX (optional key prefix).
 */
export interface BlobStorageConfig {
  token: string;
  access?: "public" | "private";
  prefix?: string;
  /**
   * Read through the blob CDN cache (default true). Safe for us: keys are never reused
   * for different bytes, and a deleted post is refused by the database check before
   * storage is read. The contract test turns it off to see deletes immediately.
   */
  useCache?: boolean;
  /** Files of at least this size use the SDK's multipart upload. Default 64 MiB. */
  multipartThreshold?: number;
}

export function blobConfigFromEnv(source: Readonly<Record<string, string | undefined>> = process.env): BlobStorageConfig {
  const token = (source.BLOB_READ_WRITE_TOKEN || "").trim();
  if (!token) throw new Error("STORAGE=blob needs BLOB_READ_WRITE_TOKEN");
  const access = (source.BLOB_ACCESS || "private").trim().toLowerCase();
  if (access !== "public" && access !== "private") throw new Error("BLOB_ACCESS must be public or private");
  return { token, access, prefix: (source.BLOB_PREFIX || "").trim() || undefined };
}
