/**
 * `backup create` (docs/operations.md, "Backup"). The database snapshot first, then the files:
 * every file a post in the snapshot refers to was stored before the post was committed.
 */
import { constants } from "node:fs";
import { copyFile, mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import Database from "better-sqlite3";
import type { DatabaseConfig } from "@/lib/db/config";
import { SECRET_FILE_NAME } from "@/lib/crypto/signing";
import { DomainError } from "@/lib/errors";
import type { StorageKind } from "@/lib/storage/types";
import { listFiles, requireEmpty } from "./folders";
import { DATABASE_ENTRY, hashFile, MANIFEST_FORMAT, MANIFEST_VERSION, writeManifest, type ManifestEntry } from "./manifest";

export interface BackupSource {
  dataDir: string;
  database: DatabaseConfig;
  storage: StorageKind;
}

export interface BackupSummary {
  out: string;
  database: { provider: DatabaseConfig["provider"]; included: boolean; message?: string };
  files: { storage: StorageKind; included: boolean; count: number; bytes: number; message?: string };
  entries: number;
  bytes: number;
}

export const FILES_DIR = "files";

export const POSTGRES_MESSAGE =
  'The database is PostgreSQL: take it with pg_dump (for example pg_dump --format=custom --file=mediahost.dump "$DATABASE_URL"); this backup holds the files only.';

/** The disk adapter's own temporary files are not objects. */
const isTemporary = (path: string): boolean => /(^|\/)\.[^/]+\.tmp$/.test(path);

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException | null)?.code === "ENOENT";

async function copyInto(out: string, from: string, path: string): Promise<ManifestEntry | null> {
  const target = join(out, path);
  await mkdir(dirname(target), { recursive: true, mode: 0o700 });
  try {
    await copyFile(from, target, constants.COPYFILE_EXCL);
  } catch (error) {
    // Deleted between the listing and the copy (a post removed meanwhile): nothing to keep.
    if (isMissing(error)) return null;
    throw error;
  }
  // Hashed from the copy: the manifest vouches for the bytes in the backup.
  return { path, ...(await hashFile(target)) };
}

async function backupSqlite(file: string, out: string): Promise<ManifestEntry> {
  let source: Database.Database;
  try {
    source = new Database(file, { readonly: true, fileMustExist: true, timeout: 15_000 });
  } catch {
    throw new DomainError("not_found", `No SQLite database at ${file}.`);
  }
  try {
    // better-sqlite3's first step copies every page at once (rate 0 = all): one read
    // transaction, so a consistent snapshot, and in WAL mode writers are not blocked.
    await source.backup(join(out, DATABASE_ENTRY));
  } finally {
    source.close();
  }
  // The copy inherits WAL mode and leaves -wal/-shm files beside it; a rollback journal
  // folds them in, so the backup's database is one self-contained file. (The server turns
  // WAL back on when it starts on a restored copy, scripts/start.ts.)
  const copy = new Database(join(out, DATABASE_ENTRY));
  try {
    copy.pragma("journal_mode = DELETE");
  } finally {
    copy.close();
  }
  return { path: DATABASE_ENTRY, ...(await hashFile(join(out, DATABASE_ENTRY))) };
}

export async function createBackup(outDir: string, source: BackupSource): Promise<BackupSummary> {
  const out = resolve(outDir);
  const dataDir = resolve(source.dataDir);
  if (out === dataDir || out.startsWith(`${dataDir}/`)) {
    throw new DomainError("invalid_request", "--out must be outside DATA_DIR (a backup inside the data would copy itself).");
  }
  await requireEmpty(out, "--out");
  // The backup holds the signing secret and everyone's files: readable by the owner only.
  await mkdir(out, { recursive: true, mode: 0o700 });

  const entries: ManifestEntry[] = [];
  const sqlite = source.database.provider === "sqlite";
  if (sqlite) entries.push(await backupSqlite(source.database.url, out));

  const secret = await copyInto(out, join(dataDir, SECRET_FILE_NAME), SECRET_FILE_NAME);
  if (secret) entries.push(secret);

  const disk = source.storage === "disk";
  let count = 0;
  let fileBytes = 0;
  if (disk) {
    const root = join(dataDir, FILES_DIR);
    for (const path of await listFiles(root)) {
      if (isTemporary(path)) continue;
      const entry = await copyInto(out, join(root, path), `${FILES_DIR}/${path}`);
      if (!entry) continue;
      entries.push(entry);
      count++;
      fileBytes += entry.size;
    }
  }

  await writeManifest(out, {
    format: MANIFEST_FORMAT,
    version: MANIFEST_VERSION,
    created_at: new Date().toISOString(),
    database: { provider: source.database.provider, included: sqlite },
    storage: { kind: source.storage, included: disk },
    entries,
  });

  return {
    out,
    database: sqlite ? { provider: "sqlite", included: true } : { provider: "postgres", included: false, message: POSTGRES_MESSAGE },
    files: disk
      ? { storage: "disk", included: true, count, bytes: fileBytes }
      : {
          storage: source.storage,
          included: false,
          count: 0,
          bytes: 0,
          message: `Files are in ${source.storage === "s3" ? "the S3 bucket" : "Vercel Blob"}: back them up with that service's own tools (versioning or replication).`,
        },
    entries: entries.length,
    bytes: entries.reduce((sum, e) => sum + e.size, 0),
  };
}
