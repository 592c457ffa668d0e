/**
 * XBackBone (github.com/SergiX44/XBackBone) 3.x on SQLite, read from its published schema
 * (`resources/schemas/sqlite/sqlite.1-7.sql`; docs/migrate.md, "XBackBone"): `users`
 * (`user_code`, bcrypt passwords from PHP's password_hash), `uploads` (`code`, `filename`,
 * `storage_path` under the storage folder, `published`, `timestamp`). An upload's links are
 * `/{user_code}/{code}.{ext}` (what ShareX was given) and `/{user_code}/{code}` (its page),
 * `/{user_code}/{code}/raw[.{ext}]` and `/{user_code}/{code}/download` (the file). An
 * unpublished upload is imported private.
 */
import { join, normalize } from "node:path";
import { DomainError } from "../errors";
import { passwordScheme } from "./pg-source";
import type { ImportSource, OldPath, SourceFile, SourceLink, SourceUser } from "./source";
import { SqliteSource, sqliteDate } from "./sqlite-source";

export async function openXBackBone(options: { path: string; storage: string; hosts: string[] }): Promise<ImportSource> {
  const db = SqliteSource.open(options.path);
  const uploads = db.columns("uploads");
  if (!uploads.has("storage_path") || !uploads.has("code") || !db.columns("users").has("user_code")) {
    db.close();
    throw new DomainError("invalid_request", "No XBackBone uploads and users tables in that database (see docs/migrate.md).");
  }
  const at = (path: string, target: OldPath["target"]): OldPath[] => options.hosts.map((host) => ({ host, path, target }));
  return {
    id: `xbackbone@${options.hosts[0]}`,
    hosts: options.hosts,
    describe: async () => "XBackBone 3.x (SQLite)",
    async *users(): AsyncGenerator<SourceUser> {
      for await (const row of db.pages("id, username, password", "users", "id")) {
        yield { key: String(row.id), username: String(row.username), passwordScheme: passwordScheme(row.password) };
      }
    },
    async *files(): AsyncGenerator<SourceFile> {
      const select = "up.id, up.user_id, up.code, up.filename, up.storage_path, up.published, up.timestamp, us.user_code";
      for await (const row of db.pages(select, "uploads up LEFT JOIN users us ON us.id = up.user_id", "up.id")) {
        const code = String(row.code);
        const filename = String(row.filename);
        const ext = filename.includes(".") ? filename.split(".").pop() : null;
        const userCode = row.user_code === null ? null : String(row.user_code);
        const stored = normalize(String(row.storage_path));
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
        yield {
          key: `upload:${row.id}`,
          ownerKey: row.user_id === null ? null : String(row.user_id),
          // storage_path is relative to the storage folder; one that climbs out of it is not XBackBone's.
          diskPath: stored.startsWith("..") || stored.startsWith("/") ? null : join(options.storage, stored),
          name: filename,
          createdAt: sqliteDate(row.timestamp) ?? new Date(),
          expiresAt: null,
          views: 0,
          maxViews: null,
          passwordProtected: false,
          // An unpublished upload is its owner's alone on the peer: private here.
          hidden: !row.published,
          folder: null,
          codeHint: code,
          oldPaths,
        };
      }
    },
    async *links(): AsyncGenerator<SourceLink> {},
    close: async () => db.close(),
  };
}
