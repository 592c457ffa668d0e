/**
 * Chibisafe v6 (the Prisma rewrite), read from its SQLite database and published schema
 * (docs/migrate.md, "Chibisafe"). Quarantined files are not imported (the peer hides them).
 */
import { DomainError } from "@/lib/errors";
import type { PeerFile, PeerStore } from "./peer-files";
import { passwordScheme } from "./pg-source";
import type { ImportSource, OldPath, SourceFile, SourceLink, SourceUser } from "./source";
import { SqliteSource, sqliteDate } from "./sqlite-source";

const stem = (name: string): string => name.replace(/\.[^.]*$/, "");

export interface ChibisafeStores {
  disk: PeerStore | null;
  bucket: PeerStore | null;
}

function fileOf(name: string, inBucket: boolean, stores: ChibisafeStores): { file: PeerFile | null; problem?: string } {
  const store = inBucket ? stores.bucket : stores.disk;
  if (!store) {
    return { file: null, problem: inBucket ? "kept in the peer's S3 bucket: give --bucket" : "kept on the peer's disk: give --uploads" };
  }
  return { file: name.includes("/") || name.includes("\\") ? null : store.file(name) };
}

export async function openChibisafe(options: { path: string; stores: ChibisafeStores; hosts: string[] }): Promise<ImportSource> {
  const db = SqliteSource.open(options.path);
  const files = db.columns("files");
  if (!files.has("original") || !files.has("uuid") || !files.has("name")) {
    db.close();
    throw new DomainError("invalid_request", "No Chibisafe v6 files table in that database (see docs/migrate.md).");
  }
  const albums = db.columns("_albumsTofiles").size > 0;
  const isS3 = files.has("isS3") ? "f.isS3" : "0";
  const at = (path: string, target: OldPath["target"]): OldPath[] => options.hosts.map((host) => ({ host, path, target }));
  return {
    id: `chibisafe@${options.hosts[0]}`,
    hosts: options.hosts,
    describe: async () => "Chibisafe v6 (SQLite)",
    async *users(): AsyncGenerator<SourceUser> {
      for await (const row of db.pages("id, username, password", "users", "id")) {
        yield { key: String(row.id), username: String(row.username), passwordScheme: passwordScheme(row.password) };
      }
    },
    async *files(): AsyncGenerator<SourceFile> {
      // One album per file at most here (the first): a post may sit in several folders, but the peer's order is not kept.
      const album = albums
        ? ", (SELECT a.name FROM _albumsTofiles x JOIN albums a ON a.id = x.A WHERE x.B = f.id ORDER BY a.id LIMIT 1) AS album"
        : ", NULL AS album";
      const select = `f.id, f.name, f.original, f.createdAt, f.userId, f.quarantine, ${isS3} AS inBucket${album}`;
      for await (const row of db.pages(select, "files f", "f.id")) {
        const name = String(row.name);
        const { file, problem } = fileOf(name, Boolean(row.inBucket), options.stores);
        const quarantined = Boolean(row.quarantine);
        yield {
          key: `file:${row.id}`,
          ownerKey: row.userId === null ? null : String(row.userId),
          file,
          name: String(row.original || name),
          createdAt: sqliteDate(row.createdAt) ?? new Date(),
          expiresAt: null,
          views: 0,
          maxViews: null,
          passwordProtected: false,
          folder: row.album ? { key: String(row.album), name: String(row.album), public: false } : null,
          codeHint: stem(name),
          oldPaths: at(`/${name}`, "file"),
          ...(quarantined ? { problem: "quarantined on the peer" } : problem ? { problem } : {}),
        };
      }
    },
    async *links(): AsyncGenerator<SourceLink> {},
    close: async () => db.close(),
  };
}
