/**
 * XBackBone 3.x on SQLite or a `mysqldump`, read from its published schema (docs/migrate.md,
 * "XBackBone"). An unpublished upload is imported private.
 */
import { open } from "node:fs/promises";
import { DomainError } from "@/lib/errors";
import { dumpRows } from "./mysql-dump";
import type { PeerStore } from "./peer-files";
import { passwordScheme } from "./pg-source";
import type { ImportSource, OldPath, SourceFile, SourceLink, SourceUser } from "./source";
import { type Row, SqliteSource, sqliteDate } from "./sqlite-source";

interface Tables {
  kind: string;
  users(): AsyncIterable<Row>;
  uploads(): AsyncIterable<Row>;
  close(): void;
}

async function isDump(path: string): Promise<boolean> {
  const handle = await open(path, "r").catch(() => null);
  if (!handle) throw new DomainError("invalid_request", `--from ${path} cannot be read.`);
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(16), 0, 16, 0);
    return !buffer.subarray(0, bytesRead).toString("latin1").startsWith("SQLite format 3");
  } finally {
    await handle.close();
  }
}

function sqliteTables(path: string): Tables {
  const db = SqliteSource.open(path);
  if (!db.columns("uploads").has("storage_path") || !db.columns("users").has("user_code")) {
    db.close();
    throw new DomainError("invalid_request", "No XBackBone uploads and users tables in that database (see docs/migrate.md).");
  }
  const select = "up.id, up.user_id, up.code, up.filename, up.storage_path, up.published, up.timestamp, us.user_code";
  return {
    kind: "SQLite",
    users: () => db.pages("id, username, password", "users", "id"),
    uploads: () => db.pages(select, "uploads up LEFT JOIN users us ON us.id = up.user_id", "up.id"),
    close: () => db.close(),
  };
}

function dumpTables(path: string): Tables {
  return {
    kind: "MySQL dump",
    users: () => dumpRows(path, "users"),
    async *uploads() {
      // The users are few: their codes are held while the uploads stream past.
      const codes = new Map<string, unknown>();
      for await (const user of dumpRows(path, "users")) codes.set(String(user.id), user.user_code);
      for await (const upload of dumpRows(path, "uploads")) yield { ...upload, user_code: codes.get(String(upload.user_id)) ?? null };
    },
    close: () => {},
  };
}

export async function openXBackBone(options: { path: string; store: PeerStore; hosts: string[] }): Promise<ImportSource> {
  const tables = (await isDump(options.path)) ? dumpTables(options.path) : sqliteTables(options.path);
  const at = (path: string, target: OldPath["target"]): OldPath[] => options.hosts.map((host) => ({ host, path, target }));
  return {
    id: `xbackbone@${options.hosts[0]}`,
    hosts: options.hosts,
    describe: async () => `XBackBone 3.x (${tables.kind})`,
    async *users(): AsyncGenerator<SourceUser> {
      for await (const row of tables.users()) {
        yield { key: String(row.id), username: String(row.username), passwordScheme: passwordScheme(row.password) };
      }
    },
    async *files(): AsyncGenerator<SourceFile> {
      for await (const row of tables.uploads()) yield toFile(row, options.store, at);
    },
    async *links(): AsyncGenerator<SourceLink> {},
    close: async () => tables.close(),
  };
}

function toFile(row: Row, store: PeerStore, at: (path: string, target: OldPath["target"]) => OldPath[]): SourceFile {
  const code = String(row.code);
  const filename = String(row.filename);
  const ext = filename.includes(".") ? filename.split(".").pop() : null;
  const userCode = row.user_code === null || row.user_code === undefined ? null : String(row.user_code);
  const base = userCode ? `/${userCode}/${code}` : null;
  const oldPaths = base
    ? [
        ...at(base, "page"),
        ...(ext ? at(`${base}.${ext}`, "page") : []),
        ...at(`${base}/raw`, "file"),
        ...(ext ? at(`${base}/raw.${ext}`, "file") : []),
        ...at(`${base}/download`, "file"),
      ]
    : [];
  return {
    key: `upload:${row.id}`,
    ownerKey: row.user_id === null || row.user_id === undefined ? null : String(row.user_id),
    // storage_path is relative to the storage folder (or the bucket's prefix); one that climbs out of it is not XBackBone's.
    file: store.file(String(row.storage_path)),
    name: filename,
    createdAt: sqliteDate(row.timestamp) ?? new Date(),
    expiresAt: null,
    views: 0,
    maxViews: null,
    passwordProtected: false,
    // An unpublished upload is its owner's alone on the peer: private here.
    hidden: !Number(row.published),
    folder: null,
    codeHint: code,
    oldPaths,
  };
}
