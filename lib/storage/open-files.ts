/**
 * Open descriptors of stored files, kept for reuse like nginx's `open_file_cache`
 * (docs/fast-lane.md): a hit is one positioned read. A delete or overwrite through this
 * process forgets the key before the file changes, and a load that overlapped it is used once
 * and not stored; other processes' changes show within `validMs` (checked with stat(2)).
 */
import { close, closeSync, fstat, open, stat, type BigIntStats } from "node:fs";

export interface OpenFile {
  readonly key: string;
  readonly path: string;
  readonly fd: number;
  readonly size: number;
  readonly etag: string;
  readonly lastModified: Date;
  /** Per-file values the caller derives once (header blocks). */
  readonly memo: Map<string, unknown>;
}

interface Entry extends OpenFile {
  refs: number;
  live: boolean;
  checkedAt: number;
  ino: bigint;
  mtimeNs: bigint;
}

export interface OpenFileCacheOptions {
  validMs: number;
  maxEntries: number;
  now?: () => number;
}

export function etagOfStats(stats: BigIntStats): string {
  return `"${stats.ino.toString(36)}-${stats.size.toString(36)}-${stats.mtimeNs.toString(36)}"`;
}

const statAsync = (path: string): Promise<BigIntStats | null> =>
  new Promise((done, fail) =>
    stat(path, { bigint: true }, (error, stats) => (error ? (isMissing(error) ? done(null) : fail(error)) : done(stats))),
  );

const isMissing = (error: NodeJS.ErrnoException): boolean => error.code === "ENOENT" || error.code === "ENOTDIR";

/** Closed synchronously: a forgotten descriptor must be gone when forget() returns with no read in flight. */
function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed: nothing holds it.
  }
}

export class OpenFileCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<Entry | null>>();
  private readonly generations = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly options: OpenFileCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached file, checked within `validMs`, retained for one read (`release` it); else undefined (use `acquire`). */
  take(key: string): OpenFile | undefined {
    const entry = this.entries.get(key);
    if (!entry || this.now() - entry.checkedAt >= this.options.validMs) return undefined;
    entry.refs++;
    return entry;
  }

  /** Like `take`, opening or re-checking the file when needed; null when it does not exist. */
  async acquire(key: string, path: string): Promise<OpenFile | null> {
    const hit = this.take(key);
    if (hit) return hit;
    const generation = this.generations.get(key) ?? 0;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = this.load(key, path, generation).finally(() => {
        this.loading.delete(key);
        this.generations.delete(key);
      });
      this.loading.set(key, pending);
    }
    const entry = await pending;
    if (!entry) return null;
    entry.refs++;
    return entry;
  }

  release(file: OpenFile): void {
    const entry = file as Entry;
    entry.refs--;
    if (!entry.live && entry.refs === 0) closeQuietly(entry.fd);
  }

  forget(key: string): void {
    // Only a load in flight needs to see the change; nothing else is kept, so deleted keys do not pile up.
    if (this.loading.has(key)) this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
    else this.generations.delete(key);
    const entry = this.entries.get(key);
    if (entry) this.retire(entry);
  }

  forgetPrefix(prefix: string): void {
    for (const key of [...this.entries.keys(), ...this.loading.keys()]) {
      if (key.startsWith(prefix)) this.forget(key);
    }
  }

  /** Forgets every key (Storage.close): descriptors close when their last read ends. */
  clear(): void {
    for (const key of [...this.entries.keys(), ...this.loading.keys()]) this.forget(key);
  }

  private retire(entry: Entry): void {
    if (!entry.live) return;
    entry.live = false;
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
    if (entry.refs === 0) closeQuietly(entry.fd);
  }

  private async load(key: string, path: string, generation: number): Promise<Entry | null> {
    const previous = this.entries.get(key);
    if (previous) {
      // Trusted for validMs; after that, still the same file on disk?
      if (sameFile(await statAsync(path), previous) && previous.live && this.unchanged(key, generation)) {
        previous.checkedAt = this.now();
        return previous;
      }
      this.retire(previous);
    }
    const opened = await openRegularFile(path);
    if (!opened) return null;
    const entry = newEntry(key, path, opened.fd, opened.stats, this.now());
    if (!this.unchanged(key, generation)) {
      // Deleted or replaced while we opened it: good for this one read, never stored.
      entry.live = false;
      return entry;
    }
    this.store(entry);
    return entry;
  }

  private unchanged(key: string, generation: number): boolean {
    return (this.generations.get(key) ?? 0) === generation;
  }

  private store(entry: Entry): void {
    const stale = this.entries.get(entry.key);
    if (stale) this.retire(stale);
    if (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.values().next().value;
      if (oldest) this.retire(oldest);
    }
    this.entries.set(entry.key, entry);
  }
}

function sameFile(stats: BigIntStats | null, entry: Entry): boolean {
  return !!stats?.isFile() && stats.ino === entry.ino && stats.size === BigInt(entry.size) && stats.mtimeNs === entry.mtimeNs;
}

/** Null when it is missing or not a regular file. */
async function openRegularFile(path: string): Promise<{ fd: number; stats: BigIntStats } | null> {
  const fd = await new Promise<number | null>((done, fail) =>
    open(path, "r", (error, opened) => (error ? (isMissing(error) ? done(null) : fail(error)) : done(opened))),
  );
  if (fd === null) return null;
  let stats: BigIntStats;
  try {
    stats = await new Promise<BigIntStats>((done, fail) => fstat(fd, { bigint: true }, (error, s) => (error ? fail(error) : done(s))));
  } catch (error) {
    close(fd, () => {});
    throw error;
  }
  if (!stats.isFile()) {
    close(fd, () => {});
    return null;
  }
  return { fd, stats };
}

function newEntry(key: string, path: string, fd: number, stats: BigIntStats, now: number): Entry {
  return {
    key,
    path,
    fd,
    size: Number(stats.size),
    etag: etagOfStats(stats),
    lastModified: stats.mtime,
    memo: new Map(),
    refs: 0,
    live: true,
    checkedAt: now,
    ino: stats.ino,
    mtimeNs: stats.mtimeNs,
  };
}
