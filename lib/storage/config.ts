/**
 * Adapter configuration, apart from the adapters so start-up can check it without importing
 * the S3 or Blob SDKs (docs/performance.md, "Settings and their measured reasons").
 */
import type { S3Client } from "@aws-sdk/client-s3";
import { parseEnv } from "@/lib/config/env";

export interface S3StorageConfig {
  bucket: string;
  region?: string;
  endpoint?: string;
  /** Both or neither; neither uses the SDK's default credential chain. */
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle?: boolean;
  prefix?: string;
  multipartThreshold?: number;
  /** S3 needs at least 5 MiB (except the last part). */
  partSize?: number;
  partConcurrency?: number;
  client?: S3Client;
}

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

/** Vercel Blob: BLOB_READ_WRITE_TOKEN (required), BLOB_ACCESS (`private` or `public`), BLOB_PREFIX. */
export interface BlobStorageConfig {
  token: string;
  access?: "public" | "private";
  prefix?: string;
  /** Safe: keys are never reused for other bytes, and a deleted post is refused before storage is read. */
  useCache?: boolean;
  multipartThreshold?: number;
}

export function blobConfigFromEnv(source: Readonly<Record<string, string | undefined>> = process.env): BlobStorageConfig {
  const token = (source.BLOB_READ_WRITE_TOKEN || "").trim();
  if (!token) throw new Error("STORAGE=blob needs BLOB_READ_WRITE_TOKEN");
  const access = (source.BLOB_ACCESS || "private").trim().toLowerCase();
  if (access !== "public" && access !== "private") throw new Error("BLOB_ACCESS must be public or private");
  return { token, access, prefix: (source.BLOB_PREFIX || "").trim() || undefined };
}
