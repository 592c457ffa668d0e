/**
 * Next's scripts and style sheets served from `.br`/`.gz` siblings written once after the build
 * at the highest levels, since they are then sent for a year (docs/compression.md). A build
 * without siblings (`next build` alone) is left to Next, which gzips per request.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join, sep } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { pickEncoding } from "./compress";

const COMPRESSED = /\.(?:js|css)$/;
const TYPES: Record<string, string> = { js: "application/javascript; charset=UTF-8", css: "text/css; charset=UTF-8" };
/** Next names these files by their content's hash: they never change under one URL. */
const IMMUTABLE = "public, max-age=31536000, immutable";
/** `/_next/static/` and a path of plain segments (no `..`, no encoded characters). */
const STATIC_PATH = /^\/_next\/static\/((?:[\w@.-]+\/)*[\w@.-]+\.(js|css))$/;

function listFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) listFiles(path, out);
    else if (entry.isFile() && COMPRESSED.test(entry.name)) out.push(path);
  }
  return out;
}

/** Writes `.br` and `.gz` beside every script and style sheet of the build; returns how many. */
export function precompressStaticAssets(root: string): number {
  const dir = join(root, ".next", "static");
  if (!existsSync(dir)) return 0;
  const files = listFiles(dir);
  for (const file of files) {
    const body = readFileSync(file);
    writeFileSync(
      `${file}.br`,
      brotliCompressSync(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      }),
    );
    writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
  }
  return files.length;
}

type Variant = { body: Buffer; etag: string };
type Asset = { identity: Variant; br?: Variant; gzip?: Variant };

export interface StaticAssets {
  /** False leaves the request to Next. */
  serve(req: IncomingMessage, res: ServerResponse): boolean;
  stylesheet(href: string): string | null;
}

/** The build's static text, read once and kept: a few megabytes at most, asked for by every new visitor. */
export function staticAssets(root: string): StaticAssets {
  const base = join(root, ".next", "static");
  const cache = new Map<string, Asset>();
  const variant = (path: string, tag: string): Variant | undefined =>
    existsSync(path) ? { body: readFileSync(path), etag: `"${tag}"` } : undefined;
  const load = (relative: string): Asset | null => {
    const cached = cache.get(relative);
    if (cached) return cached;
    const file = join(base, ...relative.split("/"));
    // Only files of the build are remembered (a miss is not: any URL could fill the map).
    if (!file.startsWith(base + sep) || !existsSync(file)) return null;
    const stat = statSync(file);
    const tag = `${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}`;
    const asset: Asset = {
      identity: { body: readFileSync(file), etag: `"${tag}"` },
      br: variant(`${file}.br`, `${tag}-br`),
      gzip: variant(`${file}.gz`, `${tag}-gz`),
    };
    cache.set(relative, asset);
    return asset;
  };
  const parse = (path: string): { relative: string; type: string } | null => {
    const match = STATIC_PATH.exec(path);
    if (!match || match[1].split("/").some((segment) => segment === "." || segment === "..")) return null;
    return { relative: match[1], type: match[2] };
  };
  return {
    serve: (req, res) => serveAsset(req, res, parse, load),
    stylesheet(href) {
      const found = parse(href);
      return found?.type === "css" ? (load(found.relative)?.identity.body.toString("utf8") ?? null) : null;
    },
  };
}

function serveAsset(
  req: IncomingMessage,
  res: ServerResponse,
  parse: (path: string) => { relative: string; type: string } | null,
  load: (relative: string) => Asset | null,
): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  const found = parse((req.url ?? "/").split("?", 1)[0]);
  const asset = found && load(found.relative);
  if (!found || !asset?.br || !asset.gzip) return false;
  const encoding = pickEncoding(req.headers["accept-encoding"]);
  const variant = encoding === "br" ? asset.br : encoding === "gzip" ? asset.gzip : asset.identity;
  const head: Record<string, string> = {
    "content-type": TYPES[found.type],
    "cache-control": IMMUTABLE,
    vary: "Accept-Encoding",
    etag: variant.etag,
  };
  if (encoding) head["content-encoding"] = encoding;
  if (req.headers["if-none-match"] === variant.etag) {
    res.writeHead(304, head);
    res.end();
    return true;
  }
  head["content-length"] = String(variant.body.length);
  res.writeHead(200, head);
  res.end(req.method === "HEAD" ? undefined : variant.body);
  return true;
}
