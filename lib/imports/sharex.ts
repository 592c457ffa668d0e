/**
 * ShareX's upload history (docs/migrate.md, "ShareX"): `History.json`, objects appended without
 * enclosing brackets, read as a stream one object at a time.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { DomainError } from "@/lib/errors";
import { diskFile } from "./peer-files";
import { normaliseHost, normalisePath, type ImportSource, type OldPath, type SourceFile, type SourceLink } from "./source";

const HistoryItem = z.object({
  FileName: z.string().nullish(),
  FilePath: z.string().nullish(),
  DateTime: z.string().nullish(),
  Type: z.string().nullish(),
  Host: z.string().nullish(),
  URL: z.string().nullish(),
  ThumbnailURL: z.string().nullish(),
  DeletionURL: z.string().nullish(),
  ShortenedURL: z.string().nullish(),
});
type HistoryItem = z.infer<typeof HistoryItem>;

/** A brace-counting scanner, so the file is never held whole; a broken object is yielded as an Error. */
export async function* historyObjects(path: string): AsyncGenerator<unknown> {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let current = "";
  for await (const chunk of createReadStream(path, { encoding: "utf8" }) as AsyncIterable<string>) {
    let start = depth > 0 ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === "\\") escaped = true;
        else if (c === '"') inString = false;
        continue;
      }
      if (c === '"') inString = depth > 0;
      else if (c === "{") {
        if (depth++ === 0) start = i;
      } else if (c === "}" && depth > 0 && --depth === 0) {
        const text = current + chunk.slice(start, i + 1);
        current = "";
        start = -1;
        try {
          yield JSON.parse(text);
        } catch (error) {
          yield error instanceof Error ? error : new Error(String(error));
        }
      }
    }
    if (depth > 0 && start !== -1) current += chunk.slice(start);
  }
  if (depth > 0) yield new Error("the file ends inside an object");
}

async function findFile(filePath: string, filesDir: string | null): Promise<string | null> {
  const isFile = async (p: string) => (await lstat(p).catch(() => null))?.isFile() ?? false;
  if (await isFile(filePath)) return filePath;
  if (!filesDir) return null;
  const parts = filePath.split(/[\\/]+/).filter((p) => p && !/^[A-Za-z]:$/.test(p) && p !== ".." && p !== ".");
  for (let i = 0; i < parts.length; i++) {
    const candidate = join(filesDir, ...parts.slice(i));
    if (await isFile(candidate)) return candidate;
  }
  return null;
}

function oldPath(url: string | null | undefined, hosts: readonly string[], target: OldPath["target"]): OldPath | null {
  if (!url) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const host = normaliseHost(parsed.host);
  if (!host || (hosts.length && !hosts.includes(host)) || parsed.pathname === "/") return null;
  return { host, path: normalisePath(parsed.pathname), target };
}

/** A URL whose last segment has an extension is the raw file; otherwise a page. */
const urlTarget = (url: string): OldPath["target"] => (/\.[A-Za-z0-9]{1,8}$/.test(new URL(url).pathname) ? "file" : "page");

const stemOf = (url: string | null | undefined): string | null => {
  if (!url) return null;
  try {
    const last = new URL(url).pathname.split("/").pop() ?? "";
    return last.replace(/\.[^.]*$/, "") || null;
  } catch {
    return null;
  }
};

export async function openShareXHistory(options: {
  path: string;
  files: string | null;
  hosts: string[];
  scope: string;
}): Promise<ImportSource> {
  if (!(await lstat(options.path).catch(() => null))?.isFile()) {
    throw new DomainError("invalid_request", `HISTORY ${options.path} is not a file.`);
  }
  const keyOf = (item: HistoryItem) =>
    createHash("sha256")
      .update(JSON.stringify([item.DateTime, item.FilePath, item.URL, item.ShortenedURL]))
      .digest("hex")
      .slice(0, 32);
  const dateOf = (item: HistoryItem) => {
    const d = item.DateTime ? new Date(item.DateTime) : new Date(Number.NaN);
    return Number.isNaN(d.getTime()) ? new Date() : d;
  };
  async function* items(): AsyncGenerator<{ index: number; item: HistoryItem | null; problem: string | null }> {
    let index = 0;
    for await (const object of historyObjects(options.path)) {
      index++;
      if (object instanceof Error) {
        yield { index, item: null, problem: `not valid JSON (${object.message})` };
        continue;
      }
      const parsed = HistoryItem.safeParse(object);
      yield parsed.success ? { index, item: parsed.data, problem: null } : { index, item: null, problem: "not a ShareX history item" };
    }
  }
  const isLink = (item: HistoryItem) => (item.Type ?? "").toLowerCase() === "url";

  return {
    id: `sharex@${options.scope}`,
    hosts: options.hosts,
    describe: async () => `ShareX history ${options.path}`,
    async *users() {},
    async *files(): AsyncGenerator<SourceFile> {
      for await (const { index, item, problem } of items()) {
        if (!item) {
          // An unreadable entry still reaches the summary: as a file with nothing on disk.
          yield broken(index, problem ?? "unreadable");
          continue;
        }
        if (isLink(item)) continue;
        const url = item.URL ?? null;
        const paths = [url ? oldPath(url, options.hosts, urlTarget(url)) : null, oldPath(item.ShortenedURL, options.hosts, "page")].filter(
          (p): p is OldPath => p !== null,
        );
        yield {
          key: `item:${keyOf(item)}`,
          ownerKey: null,
          // Not found: the history's own path, which the run then names as missing.
          file: item.FilePath ? diskFile((await findFile(item.FilePath, options.files)) ?? item.FilePath) : null,
          name: item.FileName || (item.FilePath?.split(/[\\/]/).pop() ?? "file"),
          createdAt: dateOf(item),
          expiresAt: null,
          views: 0,
          maxViews: null,
          passwordProtected: false,
          folder: null,
          codeHint: stemOf(url),
          oldPaths: paths,
        };
      }
    },
    async *links(): AsyncGenerator<SourceLink> {
      for await (const { item } of items()) {
        if (!item || !isLink(item) || !item.URL) continue;
        const short = oldPath(item.ShortenedURL, options.hosts, "link");
        yield {
          key: `item:${keyOf(item)}`,
          ownerKey: null,
          destination: item.URL,
          codeHint: stemOf(item.ShortenedURL),
          clicks: 0,
          maxClicks: null,
          passwordProtected: false,
          createdAt: dateOf(item),
          oldPaths: short ? [short] : [],
        };
      }
    },
    close: async () => {},
  };
}

function broken(index: number, problem: string): SourceFile {
  return {
    key: `entry:${index}`,
    ownerKey: null,
    file: null,
    name: `entry ${index}`,
    createdAt: new Date(),
    expiresAt: null,
    views: 0,
    maxViews: null,
    passwordProtected: false,
    folder: null,
    codeHint: null,
    oldPaths: [],
    problem,
  };
}
