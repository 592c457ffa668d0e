/**
 * Files on the local disk, the key as the relative path under `${DATA_DIR}/files`. Writes go
 * to a temp file in the target's directory, flushed, then renamed over the key: a reader sees
 * the old object or the new one, and a crash leaves at most a `.<name>.<random>.tmp` (keys
 * never start with a dot). Keys without a media extension keep their type in a `.<name>.type` sidecar.
 */
import { closeSync, constants, createReadStream, fstat as fstatCallback, open as openCallback, type BigIntStats } from "node:fs";
import { promisify } from "node:util";
import { storing } from "@/lib/faults/classify";
import { copyFile, link, lstat, mkdir, open, readFile, readdir, rename, rm, rmdir, stat, unlink, writeFile } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { basename, dirname, join, resolve } from "node:path";
import { dataDir } from "@/lib/db/config";
import { assertValidKey, assertValidPrefix, checkPut, clampRange, typeForKey } from "./keys";
import { etagOfStats, OpenFileCache } from "./open-files";
import type { ByteRange, ObjectInfo, ObjectStream, Storage } from "./types";

const openFd = promisify(openCallback);
const fstatFd = (fd: number): Promise<BigIntStats> =>
  new Promise((resolve, reject) => fstatCallback(fd, { bigint: true }, (error, stats) => (error ? reject(error) : resolve(stats))));

const FALLBACK_TYPE = "application/octet-stream";
const SIDECAR_SUFFIX = ".type";

export function defaultDiskRoot(): string {
  return join(dataDir(), "files");
}

const isMissing = (error: unknown): boolean => {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
};

/** Strong ETag from inode, size and ns mtime: every put renames a new inode into place; strong so If-Range works. */
const etagOf = etagOfStats;

/**
 * How long a cached descriptor is trusted before its path is checked again (docs/fast-lane.md):
 * stored keys never change in place, so this only bounds hand edits and other instances' deletes.
 */
export const OPEN_FILE_VALID_MS = 1000;
/** The default soft limit of a process is 1024. */
export const OPEN_FILE_MAX = 256;

function infoOf(stats: BigIntStats, contentType: string): ObjectInfo {
  return { size: Number(stats.size), contentType, etag: etagOf(stats), lastModified: stats.mtime };
}

export class DiskStorage implements Storage {
  readonly kind = "disk" as const;
  readonly root: string;
  /** Reused by the read path (lib/server/cdn-lane.ts); forgotten on every delete and overwrite. */
  readonly openFiles = new OpenFileCache({ validMs: OPEN_FILE_VALID_MS, maxEntries: OPEN_FILE_MAX });

  constructor(root: string = defaultDiskRoot()) {
    this.root = resolve(/*turbopackIgnore: true*/ root);
  }

  close(): void {
    this.openFiles.clear();
  }

  pathOf(key: string): string {
    assertValidKey(key);
    return join(this.root, ...key.split("/"));
  }

  async putFile(key: string, localPath: string, contentType: string): Promise<ObjectInfo> {
    const type = checkPut(key, contentType);
    // A full volume is the 503 of docs/faults.md (storing); writeAtomically leaves nothing behind.
    return storing(() =>
      this.writeAtomically(key, type, async (tmp) => {
        await linkOrCopy(localPath, tmp);
        await syncFile(tmp);
      }),
    );
  }

  async putBuffer(key: string, data: Buffer, contentType: string): Promise<ObjectInfo> {
    const type = checkPut(key, contentType);
    return storing(() => this.writeAtomically(key, type, (tmp) => writeFile(tmp, data, { flag: "wx", flush: true })));
  }

  async stat(key: string): Promise<ObjectInfo | null> {
    const path = this.pathOf(key);
    let stats: BigIntStats;
    try {
      stats = await stat(path, { bigint: true });
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    if (!stats.isFile()) return null;
    return infoOf(stats, await this.typeOf(key, path));
  }

  async open(key: string, range?: ByteRange): Promise<ObjectStream | null> {
    const path = this.pathOf(key);
    // Callbacks and a classic ReadStream: FileHandle streams cost a promise per chunk.
    let fd: number;
    try {
      fd = await openFd(path, "r");
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    try {
      // fstat what we read from: size and ETag describe these bytes even if the key is replaced meanwhile.
      const stats = await fstatFd(fd);
      if (!stats.isFile()) {
        closeSync(fd);
        return null;
      }
      const info = infoOf(stats, await this.typeOf(key, path));
      const opened = range ? clampRange(range, info.size) : undefined;
      const body = createReadStream(path, { fd, autoClose: true, ...(opened ? { start: opened.start, end: opened.end } : {}) });
      return { ...info, body, range: opened };
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    this.openFiles.forget(key);
    await unlinkIfPresent(path);
    if (!typeForKey(key)) await unlinkIfPresent(sidecarOf(path));
  }

  async moveOut(key: string, localPath: string): Promise<boolean> {
    const path = this.pathOf(key);
    this.openFiles.forget(key);
    try {
      await rename(path, localPath);
    } catch (error) {
      if (isMissing(error) || (error as NodeJS.ErrnoException).code === "EXDEV") return false;
      throw error;
    }
    if (!typeForKey(key)) await unlinkIfPresent(sidecarOf(path));
    return true;
  }

  async deleteAbandoned(key: string): Promise<void> {
    await this.delete(key);
    const target = this.pathOf(key);
    const dir = dirname(target);
    const partial = `.${basename(target)}.`;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    await Promise.all(names.filter((n) => n.startsWith(partial) && n.endsWith(".tmp")).map((n) => unlinkIfPresent(join(dir, n))));
    // The post's folder, if nothing else is in it now (ENOTEMPTY: other files stay).
    await rmdir(dir).catch(() => undefined);
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertValidPrefix(prefix);
    this.openFiles.forgetPrefix(prefix);
    if (prefix.endsWith("/")) {
      // maxRetries: a write landing in the folder mid-removal (ENOTEMPTY) is retried, not thrown.
      await rm(join(this.root, ...prefix.slice(0, -1).split("/")), { recursive: true, force: true, maxRetries: 3 });
      return;
    }
    // String-prefix semantics, like S3: `h/ab` removes `h/abc.ts` and the folder `h/abd/`.
    const slash = prefix.lastIndexOf("/");
    const dir = join(this.root, ...(slash < 0 ? [] : prefix.slice(0, slash).split("/")));
    const start = prefix.slice(slash + 1);
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    const doomed = names.filter((name) => name.startsWith(start) || sidecarKeyName(name)?.startsWith(start));
    // Temp files (`.x.<random>.tmp`) are left alone: they belong to writes in progress.
    await Promise.all(doomed.map((name) => rm(join(dir, name), { recursive: true, force: true })));
  }

  private async typeOf(key: string, path: string): Promise<string> {
    const implied = typeForKey(key);
    if (implied) return implied;
    try {
      return (await readFile(sidecarOf(path), "utf8")).trim() || FALLBACK_TYPE;
    } catch (error) {
      if (isMissing(error)) return FALLBACK_TYPE;
      throw error;
    }
  }

  private async writeAtomically(key: string, type: string, write: (tmp: string) => Promise<void>): Promise<ObjectInfo> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    const tmp = tempNameFor(target);
    try {
      await write(tmp);
      // The sidecar first: a reader may see the new type with old bytes, never a new object without its type.
      if (!typeForKey(key)) await writeSmallFileAtomically(sidecarOf(target), type);
      // Before and after the rename: a descriptor opened in between holds the old bytes.
      this.openFiles.forget(key);
      await rename(tmp, target);
      this.openFiles.forget(key);
    } catch (error) {
      await rm(tmp, { force: true });
      throw error;
    }
    return infoOf(await stat(target, { bigint: true }), type);
  }
}

function tempNameFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
}

function sidecarOf(path: string): string {
  return join(dirname(path), `.${basename(path)}${SIDECAR_SUFFIX}`);
}

function sidecarKeyName(name: string): string | undefined {
  if (!name.startsWith(".") || !name.endsWith(SIDECAR_SUFFIX)) return undefined;
  const inner = name.slice(1, -SIDECAR_SUFFIX.length);
  return inner && !inner.startsWith(".") ? inner : undefined;
}

async function writeSmallFileAtomically(path: string, text: string): Promise<void> {
  const tmp = tempNameFor(path);
  try {
    await writeFile(tmp, text, { flag: "wx", flush: true });
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

/**
 * Puts the source's bytes at `target`: a hard link when it is a regular file on the same
 * filesystem, as upload temp files are (docs/performance.md, "Stored by a hard link, hashed
 * while received"), so callers must never rewrite a source after the put; otherwise copyFile
 * (copy_file_range or a reflink), which opens the source first so a missing one creates nothing.
 */
async function linkOrCopy(source: string, target: string): Promise<void> {
  // lstat, not stat: link(2) would link a symlink itself rather than the file it names.
  const isFile = await lstat(source).then(
    (s) => s.isFile(),
    () => false,
  );
  if (isFile) {
    try {
      await link(source, target);
      return;
    } catch {
      // EXDEV, EPERM, EMLINK...: fall back to copying.
    }
  }
  await copyFile(source, target, constants.COPYFILE_EXCL);
}

/** Flushed so the rename that follows never publishes an empty file after a power cut. */
async function syncFile(path: string): Promise<void> {
  const handle = await open(path, "r+");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function unlinkIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}
