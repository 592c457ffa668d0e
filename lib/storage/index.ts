/** The process-wide storage, picked by STORAGE (docs/storage.md). */
import { env } from "@/lib/config/env";
import { blobConfigFromEnv, s3ConfigFromEnv } from "./config";
import { DiskStorage } from "./disk";
import type { ByteRange, DirectUrlRequest, ObjectInfo, ObjectStream, Storage, StorageKind } from "./types";

export type { ByteRange, DirectUrlRequest, ObjectInfo, ObjectStream, Storage, StorageKind } from "./types";
export type { BlobStorageConfig, S3StorageConfig } from "./config";
export { DiskStorage, defaultDiskRoot } from "./disk";
export { assertValidKey, assertValidPrefix, typeForKey, TYPE_BY_EXTENSION } from "./keys";

const KINDS: readonly StorageKind[] = ["disk", "s3", "blob"];

/** Loaded on first use: the S3 and Blob SDKs take a few hundred ms to import. */
class LazyStorage implements Storage {
  private loading?: Promise<Storage>;
  constructor(
    readonly kind: StorageKind,
    private readonly load: () => Promise<Storage>,
  ) {}
  private target(): Promise<Storage> {
    this.loading ??= this.load();
    return this.loading;
  }
  async putFile(key: string, localPath: string, contentType: string): Promise<ObjectInfo> {
    return (await this.target()).putFile(key, localPath, contentType);
  }
  async putBuffer(key: string, data: Buffer, contentType: string): Promise<ObjectInfo> {
    return (await this.target()).putBuffer(key, data, contentType);
  }
  async stat(key: string): Promise<ObjectInfo | null> {
    return (await this.target()).stat(key);
  }
  async open(key: string, range?: ByteRange): Promise<ObjectStream | null> {
    return (await this.target()).open(key, range);
  }
  async delete(key: string): Promise<void> {
    return (await this.target()).delete(key);
  }
  async deletePrefix(prefix: string): Promise<void> {
    return (await this.target()).deletePrefix(prefix);
  }
  async deleteAbandoned(key: string): Promise<void> {
    return (await this.target()).deleteAbandoned(key);
  }
  async directUrl(key: string, request: DirectUrlRequest): Promise<string> {
    const target = await this.target();
    if (!target.directUrl) throw new Error(`${this.kind} storage has no direct URLs`);
    return target.directUrl(key, request);
  }
}

/** Configuration errors throw here, at the first `storage()` call. */
export function createStorage(kind: string = env().STORAGE): Storage {
  switch (kind) {
    case "disk":
      return new DiskStorage();
    case "s3": {
      const config = s3ConfigFromEnv();
      return new LazyStorage("s3", async () => new (await import("./s3")).S3Storage(config));
    }
    case "blob": {
      const config = blobConfigFromEnv();
      return new LazyStorage("blob", async () => new (await import("./blob")).BlobStorage(config));
    }
    default:
      throw new Error(`STORAGE must be one of ${KINDS.join(", ")}, got ${JSON.stringify(kind)}`);
  }
}

// On globalThis: Next's bundles (and dev reloads) must share one adapter (one S3 client).
const holder = globalThis as unknown as { __mediahostStorage?: Storage };

export function storage(): Storage {
  holder.__mediahostStorage ??= createStorage();
  return holder.__mediahostStorage;
}

/** For tests; `undefined` reads STORAGE again. Returns the previous adapter, not closed. */
export function setStorage(next: Storage | undefined): Storage | undefined {
  const previous = holder.__mediahostStorage;
  holder.__mediahostStorage = next;
  return previous;
}
