/**
 * Share pages (/p/{code}) as robots get them, replayed from memory until the database changes:
 * unfurlers fetch a chat link many times and every robot sees the anonymous page
 * (docs/performance.md, "Read caches that never outlive a commit"). People and anyone with a
 * cookie get a fresh render; the key includes Host and Accept-Encoding (Next compresses per client).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { VersionedCache } from "@/lib/cache/versioned";
import { CACHE_HEADER } from "@/lib/http/respond";
import { isRobot } from "@/lib/web/robots";
import { pageExpired } from "@/lib/web/page-expiry";

interface Page {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

const MAX_PAGE_BYTES = 512 * 1024;
/** Headers that belong to one response, not to the page. */
const PER_RESPONSE = new Set(["request-id", "date", "connection", "keep-alive", "transfer-encoding", "content-length", "set-cookie"]);
const SHARE_PATH = /^\/p\/[A-Za-z0-9]{4,64}(?:\?|$)/;

const shareCodeOf = (url: string): string => url.slice("/p/".length).split("?")[0];

/** A share page is ~20 KB: a thousand of them, and never more than 16 MB in all. */
const pages = new VersionedCache<string, Page>({
  name: "robot_pages",
  maxEntries: 1_000,
  ttlMs: 60_000,
  maxWeight: 16 * 1024 * 1024,
  weigh: (page) => page.body.length + 1024,
});

function cacheKey(req: IncomingMessage): string | null {
  if (req.method !== "GET" || !SHARE_PATH.test(req.url ?? "")) return null;
  const h = req.headers;
  if (h.cookie || h.authorization || h.rsc || h["next-router-prefetch"] || h["next-router-state-tree"] || h["x-link-domain"]) return null;
  if (!isRobot(h["user-agent"])) return null;
  return `${h.host ?? ""}\n${h["accept-encoding"] ?? ""}\n${req.url}`;
}

/** Answers a robot's share-page request from memory, or renders through Next and records it for a robot. */
export async function servePage(req: IncomingMessage, res: ServerResponse, render: () => Promise<void>): Promise<void> {
  const key = cacheKey(req);
  if (!key) return render();
  const stamp = pages.stamp();
  if (replay(req, res, key, stamp)) return;
  // One render per page at a time: a burst of robots each rendering was their p99
  // (docs/performance.md, "One look-up per lapsed file"). Only a render at the same change number is waited for.
  const flying = renders.get(key);
  if (flying && flying.stamp === stamp) {
    await flying.done;
    if (replay(req, res, key, stamp)) return;
  }
  const finished = new Promise<void>((done) => res.once("close", done));
  const flight = { stamp, done: finished };
  renders.set(key, flight);
  void finished.then(() => {
    if (renders.get(key) === flight) renders.delete(key);
  });
  record(res, (page) => pages.put(key, page, stamp));
  return render();
}

const renders = new Map<string, { stamp: number; done: Promise<void> }>();

/** Writes the recorded page when there is a current one; false when it must be rendered. */
function replay(req: IncomingMessage, res: ServerResponse, key: string, stamp: number): boolean {
  const hit = pages.peek(key, stamp);
  // An expiring post's page is replayed only until the post expires (docs/expiry.md).
  if (!hit || pageExpired(shareCodeOf(req.url ?? ""))) return false;
  res.writeHead(hit.status, { ...hit.headers, "content-length": String(hit.body.length), [CACHE_HEADER]: "hit" });
  res.end(hit.body);
  return true;
}

function record(res: ServerResponse, keep: (page: Page) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let usable = true;
  const collect = (chunk: unknown, encoding: unknown): void => {
    if (!usable || chunk === undefined || chunk === null || typeof chunk === "function") return;
    const buffer = Buffer.isBuffer(chunk)
      ? chunk
      : typeof chunk === "string"
        ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8")
        : chunk instanceof Uint8Array
          ? Buffer.from(chunk)
          : null;
    if (!buffer) {
      usable = false;
      return;
    }
    size += buffer.length;
    if (size > MAX_PAGE_BYTES) {
      usable = false;
      chunks.length = 0;
      return;
    }
    // Copied: a writer may reuse its buffer once write() returns.
    chunks.push(Buffer.from(buffer));
  };
  const write = res.write;
  const end = res.end;
  res.write = function (this: ServerResponse, ...args: Parameters<ServerResponse["write"]>) {
    collect(args[0], args[1]);
    return write.apply(this, args);
  } as ServerResponse["write"];
  res.end = function (this: ServerResponse, ...args: Parameters<ServerResponse["end"]>) {
    collect(args[0], args[1]);
    return end.apply(this, args);
  } as ServerResponse["end"];
  res.once("finish", () => {
    if (!usable || (res.statusCode !== 200 && res.statusCode !== 404) || res.hasHeader("set-cookie")) return;
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(res.getHeaders())) {
      if (value === undefined || PER_RESPONSE.has(name)) continue;
      headers[name] = Array.isArray(value) ? value : String(value);
    }
    keep({ status: res.statusCode, headers, body: Buffer.concat(chunks) });
  });
}
