/** Zipline v3 and v4 on PostgreSQL, read from its Prisma tables (docs/migrate.md, "Zipline"). */
import { DomainError } from "@/lib/errors";
import type { PeerStore } from "./peer-files";
import { PgSource, passwordScheme, type Row } from "./pg-source";
import type { ImportSource, OldPath, SourceFile, SourceLink, SourceUser } from "./source";

type Version = "v3" | "v4";

const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const date = (v: unknown): Date | null => (v instanceof Date ? v : v ? new Date(String(v)) : null);
const route = (r: unknown, fallback: string): string => `/${String(r ?? fallback).replace(/^\/+|\/+$/g, "")}`;

const stem = (name: string): string => name.replace(/\.[^.]*$/, "");

interface ZiplineLayout {
  version: Version;
  filesRoute: string;
  urlsRoute: string;
}

async function detectLayout(db: PgSource): Promise<ZiplineLayout> {
  const file = await db.columns("File");
  let version: Version;
  if (file.has("type") && file.has("deletesAt")) version = "v4";
  else if (file.has("mimetype") && file.has("name")) version = "v3";
  else throw new DomainError("invalid_request", "No Zipline 3.7+ or 4.x File table in that database (see docs/migrate.md).");
  let [filesRoute, urlsRoute] = ["/u", "/go"];
  if (version === "v4" && (await db.columns("Zipline")).has("filesRoute")) {
    const [settings] = await db.query(`SELECT "filesRoute", "urlsRoute" FROM "Zipline" LIMIT 1`);
    if (settings) [filesRoute, urlsRoute] = [route(settings.filesRoute, "u"), route(settings.urlsRoute, "go")];
  }
  return { version, filesRoute, urlsRoute };
}

function rowMappers({ version, filesRoute, urlsRoute }: ZiplineLayout, options: { store: PeerStore; hosts: string[] }) {
  const at = (path: string, target: OldPath["target"]): OldPath[] => options.hosts.map((h) => ({ host: h, path, target }));
  const toFile = (row: Row): SourceFile => {
    const name = String(row.name);
    const oldPaths =
      version === "v4"
        ? [...at(`${filesRoute}/${name}`, "file"), ...at(`/raw/${name}`, "file"), ...at(`/view/${name}`, "page")]
        : [...at(`${filesRoute}/${name}`, "file"), ...at(`/r/${name}`, "file")];
    return {
      key: `file:${row.id}`,
      ownerKey: str(row.userId),
      // Only a plain name is looked up in the directory: a name with a path in it is not Zipline's.
      file: name.includes("/") || name.includes("\\") ? null : options.store.file(name),
      name: str(row.originalName) || name,
      createdAt: date(row.createdAt) ?? new Date(),
      expiresAt: date(row.expires),
      views: num(row.views),
      maxViews: row.maxViews === null || row.maxViews === undefined ? null : num(row.maxViews),
      passwordProtected: Boolean(row.password),
      folder:
        row.folderId === null || row.folderId === undefined
          ? null
          : { key: String(row.folderId), name: String(row.folderName), public: Boolean(row.folderPublic) },
      codeHint: stem(name),
      oldPaths,
    };
  };
  const toLink = (row: Row): SourceLink => {
    const code = version === "v4" ? String(row.code) : String(row.id);
    const vanity = str(row.vanity);
    return {
      key: `url:${row.id}`,
      ownerKey: str(row.userId),
      destination: String(row.destination),
      codeHint: vanity ?? code,
      clicks: num(row.views),
      maxClicks: row.maxViews === null || row.maxViews === undefined ? null : num(row.maxViews),
      passwordProtected: Boolean(row.password),
      createdAt: date(row.createdAt) ?? new Date(),
      oldPaths: [...at(`${urlsRoute}/${code}`, "link"), ...(vanity ? at(`${urlsRoute}/${vanity}`, "link") : [])],
    };
  };
  return { toFile, toLink };
}

export async function openZipline(options: { url: string; store: PeerStore; hosts: string[] }): Promise<ImportSource> {
  const db = await PgSource.open(options.url);
  let layout: ZiplineLayout;
  try {
    layout = await detectLayout(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  const { version, filesRoute, urlsRoute } = layout;
  const idType = version === "v4" ? "text" : "int";
  const [host] = options.hosts;
  const { toFile, toLink } = rowMappers(layout, options);

  const folderPublic = version === "v4" || (await db.columns("Folder")).has("public");
  return {
    id: `zipline@${host}`,
    hosts: options.hosts,
    describe: async () => `Zipline ${version} (files route ${filesRoute}, URLs route ${urlsRoute})`,
    async *users(): AsyncGenerator<SourceUser> {
      for await (const row of db.pages(`"id", "username", "password"`, `"User"`, `"id"`, idType)) {
        yield { key: String(row.id), username: String(row.username), passwordScheme: passwordScheme(row.password) };
      }
    },
    async *files(): AsyncGenerator<SourceFile> {
      const expires = version === "v4" ? `f."deletesAt"` : `f."expiresAt"`;
      const select =
        `f."id", f."name", f."originalName", f."createdAt", ${expires} AS "expires", f."views", f."maxViews", f."password", ` +
        `f."userId", f."folderId", d."name" AS "folderName", ${folderPublic ? `d."public"` : "false"} AS "folderPublic"`;
      for await (const row of db.pages(select, `"File" f LEFT JOIN "Folder" d ON d."id" = f."folderId"`, `f."id"`, idType))
        yield toFile(row);
    },
    async *links(): AsyncGenerator<SourceLink> {
      const cols = await db.columns("Url");
      const select = [`"id"`, `"destination"`, `"vanity"`, `"createdAt"`, `"views"`, `"maxViews"`, `"userId"`]
        .concat(version === "v4" ? [`"code"`] : [])
        .concat(cols.has("password") ? [`"password"`] : [])
        .join(", ");
      for await (const row of db.pages(select, `"Url"`, `"id"`, "text")) yield toLink(row);
    },
    close: () => db.close(),
  };
}
