/**
 * Where a peer keeps its files (docs/migrate.md, "Files on S3"): a folder or an S3 bucket. A name
 * that would leave the place is no file; the S3 client loads only with a bucket (slow to import).
 */
import { copyFile, lstat } from "node:fs/promises";
import { isAbsolute, join, normalize } from "node:path";
import { DomainError } from "@/lib/errors";

/** One file of the peer: its size (null: not there) and a way to copy its bytes here. */
export interface PeerFile {
  readonly name: string;
  readonly where: string;
  size(): Promise<number | null>;
  copyTo(localPath: string): Promise<void>;
}

export interface PeerStore {
  readonly description: string;
  file(relative: string): PeerFile | null;
  close(): void;
}

/** A file on this machine's disk, by its own path (ShareX names absolute paths). */
export function diskFile(path: string): PeerFile {
  return {
    name: path,
    where: "on disk",
    size: async () => {
      const stat = await lstat(path).catch(() => null);
      return stat?.isFile() ? stat.size : null;
    },
    copyTo: (localPath) => copyFile(path, localPath),
  };
}

function inside(relative: string): string | null {
  if (!relative || relative.includes("\0") || isAbsolute(relative) || /^[A-Za-z]:/.test(relative)) return null;
  const parts = relative.split(/[\\/]+/);
  if (parts.some((p) => p === "..")) return null;
  const path = normalize(parts.filter((p) => p && p !== ".").join("/"));
  return path && path !== "." ? path : null;
}

export function diskStore(dir: string): PeerStore {
  return {
    description: dir,
    file: (relative) => {
      const path = inside(relative);
      return path === null ? null : diskFile(join(dir, path));
    },
    close: () => {},
  };
}

export interface BucketOptions {
  url: string;
  endpoint?: string;
  region?: string;
}

export function parseBucketUrl(url: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([^/]+)(?:\/(.*))?$/i.exec(url.trim());
  if (!match) throw new DomainError("invalid_request", `--bucket must be s3://BUCKET or s3://BUCKET/PREFIX, not ${url}.`);
  const prefix = (match[2] ?? "").replace(/^\/+|\/+$/g, "");
  return { bucket: match[1], prefix: prefix ? `${prefix}/` : "" };
}

export async function bucketStore(options: BucketOptions): Promise<PeerStore> {
  const { bucket, prefix } = parseBucketUrl(options.url);
  if (options.endpoint && !/^https?:\/\/[^/]/i.test(options.endpoint)) {
    throw new DomainError("invalid_request", `--s3-endpoint must be an http:// or https:// URL, not ${options.endpoint}.`);
  }
  const { ForeignBucket } = await import("@/lib/storage/s3-foreign");
  const client = new ForeignBucket(bucket, { endpoint: options.endpoint, region: options.region });
  // The bucket is checked once, before any row is read: a wrong name, endpoint or key stops the run.
  let state: Awaited<ReturnType<typeof client.check>>;
  try {
    state = await client.check();
  } catch (error) {
    client.close();
    throw new DomainError(
      "invalid_request",
      `The bucket ${options.url} cannot be reached: ${(error as Error).name}: ${(error as Error).message}`,
    );
  }
  if (state === "missing") {
    client.close();
    throw new DomainError("invalid_request", `There is no bucket ${bucket} at ${options.endpoint ?? "AWS S3"}.`);
  }
  return {
    description: `s3://${bucket}/${prefix}`,
    file: (relative) => {
      const path = inside(relative);
      if (path === null) return null;
      const key = `${prefix}${path}`;
      return {
        name: `s3://${bucket}/${key}`,
        where: "in the bucket",
        size: () => client.size(key),
        copyTo: (localPath) => client.download(key, localPath),
      };
    },
    close: () => client.close(),
  };
}

export async function peerStore(flags: { dir?: string; dirFlag: string; bucket?: BucketOptions }): Promise<PeerStore> {
  if (flags.dir && flags.bucket) throw new DomainError("invalid_request", `Give ${flags.dirFlag} or --bucket, not both.`);
  if (flags.bucket) return bucketStore(flags.bucket);
  if (flags.dir) return diskStore(flags.dir);
  throw new DomainError(
    "invalid_request",
    `Give ${flags.dirFlag} DIR (the peer's files on this machine) or --bucket s3://BUCKET[/PREFIX].`,
  );
}
