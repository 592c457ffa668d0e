/** Old links of imported items, answered before Next (docs/migrate.md, "Old links"); a failed look-up goes on to Next. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastLane } from "./fast-lane";

type Resolve = typeof import("@/lib/imports/old-links").resolveOldLink;
let resolver: Promise<Resolve> | null = null;

const MACHINERY = /^\/(?:api|relay|cdn|_next|healthz|metrics|cron|oembed)(?:[/?]|$)/;

export async function answerOldLink(req: IncomingMessage, res: ServerResponse, fastLane: FastLane | undefined): Promise<boolean> {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  const url = req.url ?? "/";
  // The service's own machinery is never an old link: a health check or an API call must not
  // wait on the import tables (a frozen database held /healthz past its bound that way).
  if (MACHINERY.test(url)) return false;
  const query = url.indexOf("?");
  // Loaded on first use: the database client comes after Next's environment is set (server.ts).
  resolver ??= import("@/lib/imports/old-links").then((m) => m.resolveOldLink);
  let answer: Awaited<ReturnType<Resolve>>;
  try {
    answer = await (await resolver)(req.headers.host, query === -1 ? url : url.slice(0, query));
  } catch {
    // The database away or the like: the page's own answer (404 or 503) is given instead.
    return false;
  }
  if (!answer) return false;
  if (answer.kind === "file" && fastLane) {
    // The bytes themselves, with /cdn's rules (validators, Range, caching, refusals).
    req.url = answer.cdnPath;
    if (fastLane.serveFile(req, res)) return true;
    return fastLane(req, res);
  }
  const location = answer.kind === "file" ? answer.cdnPath : answer.location;
  res.writeHead(301, { location, "cache-control": "public, max-age=3600", "content-length": "0" });
  res.end();
  return true;
}
