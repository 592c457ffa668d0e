/**
 * The HTTP server in front of Next.js, which cannot be trusted with the client address (it
 * fills X-Forwarded-For only when the client sent none) nor stamp a request id on replies it
 * does not render (docs/architecture.md).
 */
import { prepareNextEnvironment } from "@/lib/config/process-env";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { parseEnv } from "@/lib/config/env";
import { CONTENT_LENGTH_CARRIER, JSON_TYPE } from "@/lib/http/respond";
import { errorBody } from "@/lib/errors";
import { refusalFor, UNAVAILABLE_RETRY_AFTER_SECONDS } from "@/lib/faults/classify";
import { countRefused, isDown, outages } from "@/lib/faults/outages";
import { answerClientError } from "./client-error";
import { lingerOnUnreadBody } from "./linger";
import type { TrustSetting } from "@/lib/http/client-ip";
import { stampRequest, syncRawHeaders } from "./stamp";
import { CUSTOM_SERVER } from "./next-start";
import { createFastLane, type FastLane } from "./fast-lane";
import { listenForPostEvents } from "@/lib/webhooks/post-events";
import { isFormPost, screenFormPost } from "./form-posts";
import { hasMalformedPath, isNextMethod, NEXT_METHODS, refuseBeforeNext } from "./next-gate";
import { servePage } from "./page-cache";
import { serveWithoutRuntime, servesWithoutRuntime } from "./share-islands";
import { serveDashboardIslands, servesDashboardIslands } from "./dashboard-islands";
import { type IslandsManifest, readIslandsManifest } from "./islands-build";
import { staticAssets, type StaticAssets } from "./static-assets";
import { pageInlines, type PageInlines } from "./page-inlines";
import { answerOldLink } from "./old-links";
import { hostVerdict, isServedHost } from "@/lib/domains/host-gate";

export interface StartServerOptions {
  port: number;
  hostname?: string;
  dev: boolean;
  dir?: string;
  trustProxy?: TrustSetting;
  /** On unless dev. */
  fastLane?: boolean;
}

export interface RunningServer {
  url: string;
  /** Lets requests in flight finish (up to a grace period), then stops Next. */
  close(): Promise<void>;
}

const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Next.js drops `Content-Length` from route-handler responses; our handlers also send it as
 * CONTENT_LENGTH_CARRIER, moved back here before the head is written. Not when the body is encoded.
 */
function restoreContentLength(res: ServerResponse): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    const carried = res.getHeader(CONTENT_LENGTH_CARRIER);
    if (carried !== undefined) {
      res.removeHeader(CONTENT_LENGTH_CARRIER);
      if (!res.hasHeader("content-length") && !res.hasHeader("content-encoding") && !res.hasHeader("transfer-encoding")) {
        res.setHeader("content-length", String(carried));
      }
    }
    return writeHead(...args);
  }) as ServerResponse["writeHead"];
}

/** A page Next answers 500 while a dependency is away goes out as 503 with Retry-After (docs/faults.md). */
function unavailableWhileDown(res: ServerResponse): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    const status = typeof args[0] === "number" ? args[0] : res.statusCode;
    const away = status === 500 ? outages()[0] : undefined;
    if (away) {
      if (typeof args[0] === "number") args[0] = 503;
      res.statusCode = 503;
      res.setHeader("retry-after", String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      countRefused(away.dependency);
    }
    return writeHead(...args);
  }) as ServerResponse["writeHead"];
}

const NOT_PAGES = /^\/(?:_next\/|healthz$|metrics$|cron$|oembed(?:\/|$))/;

function isPageRequest(req: IncomingMessage): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  const path = (req.url ?? "/").split("?", 1)[0];
  return !NOT_PAGES.test(path) && !path.slice(path.lastIndexOf("/") + 1).includes(".");
}

const UNAVAILABLE_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
  "<title>Temporarily unavailable</title></head><body><main><h1>Temporarily unavailable</h1>" +
  "<p>The service cannot reach its database right now. Please try again in a few seconds.</p></main></body></html>";

function answerPageUnavailable(res: ServerResponse): void {
  countRefused("database");
  res.writeHead(503, {
    "content-type": "text/html; charset=utf-8",
    "content-length": String(Buffer.byteLength(UNAVAILABLE_PAGE)),
    "retry-after": String(UNAVAILABLE_RETRY_AFTER_SECONDS),
    "cache-control": "no-store",
  });
  res.end(res.req.method === "HEAD" ? undefined : UNAVAILABLE_PAGE);
}

/** A request that failed past every handler: 500 or a cut connection; a dependency away is docs/faults.md's 503. */
function answerFailure(res: ServerResponse, requestId: string, error: unknown): void {
  const refused = refusalFor(error);
  if (refused && !res.headersSent) {
    const body = JSON.stringify(errorBody("unavailable", refused.message));
    res.writeHead(503, {
      "request-id": requestId,
      "content-type": JSON_TYPE,
      "content-length": String(Buffer.byteLength(body)),
      "retry-after": String(refused.retryAfter),
      "cache-control": "no-store",
    });
    res.end(body);
    return;
  }
  if (!refused) console.error(`request ${requestId} failed`, error);
  if (!res.headersSent) {
    res.statusCode = 500;
    res.setHeader("request-id", requestId);
    res.setHeader("content-type", "text/plain; charset=utf-8");
    res.end("Internal Server Error");
  } else {
    res.destroy();
  }
}

function serveFileNow(lane: FastLane, req: IncomingMessage, res: ServerResponse, requestId: string): boolean {
  try {
    return lane.serveFile(req, res);
  } catch (error) {
    answerFailure(res, requestId, error);
    return true;
  }
}

function serveCachedNow(lane: FastLane, req: IncomingMessage, res: ServerResponse, requestId: string): boolean {
  try {
    return lane.serveCached(req, res);
  } catch (error) {
    answerFailure(res, requestId, error);
    return true;
  }
}

function reachableUrl(address: AddressInfo): string {
  const host =
    // Every interface (an unset HOST binds "::", which takes IPv4 too): the loopback answers.
    address.address === "0.0.0.0" || address.address === "::"
      ? "127.0.0.1"
      : address.family === "IPv6"
        ? `[${address.address}]`
        : address.address;
  return `http://${host}:${address.port}`;
}

export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const dir = resolve(options.dir ?? process.cwd());
  const trustProxy = options.trustProxy ?? parseEnv().trustProxy;
  // This server stamps every request itself: instrumentation.ts must not stamp them again.
  (globalThis as { [CUSTOM_SERVER]?: boolean })[CUSTOM_SERVER] = true;
  // NODE_ENV must be right before Next is loaded (lib/config/process-env.ts).
  prepareNextEnvironment(!!options.dev);

  const { default: next } = await import("next");

  // Listen first so that port 0 resolves to a real port Next can be told about; requests
  // that arrive while Next prepares wait for it.
  const assets = options.dev ? undefined : staticAssets(dir);
  const handlers: Handlers = {
    assets,
    inlines: pageInlines(dir, assets),
    islands: options.dev ? () => null : once(() => readIslandsManifest(dir)),
  };
  let markReady!: () => void;
  const ready = new Promise<void>((done) => (markReady = done));
  const server = createHttpServer(requestListener(handlers, ready, trustProxy, options.dev));
  const address = await listen(server, options.port, options.hostname);

  const app = next({ dev: options.dev, dir, hostname: options.hostname, port: address.port });
  try {
    await app.prepare();
  } catch (error) {
    server.close();
    throw error;
  }
  handlers.next = app.getRequestHandler();
  // Post events reach the webhooks from the start, pages and server actions included (lib/posts/events.ts).
  listenForPostEvents();
  handlers.fastLane = options.dev || options.fastLane === false ? undefined : await createFastLane();
  if (options.dev) {
    const upgrade = app.getUpgradeHandler();
    server.on("upgrade", (req, socket, head) => {
      void upgrade(req, socket, head);
    });
  }
  markReady();

  return { url: reachableUrl(address), close: closeOnce(server, app) };
}

type RequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

type Handlers = {
  next?: RequestHandler;
  fastLane?: FastLane;
  assets?: StaticAssets;
  inlines?: PageInlines;
  /** The dashboard's own bundle (islands-build.ts); null: its pages keep Next's runtime. */
  islands?: () => IslandsManifest | null;
};

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

function requestListener(
  handlers: Handlers,
  ready: Promise<void>,
  trustProxy: TrustSetting,
  dev: boolean,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const requestId = stampRequest(req, trustProxy);
    // A reply sent before the body was read must reach the client (linger.ts).
    lingerOnUnreadBody(req, res);
    // With DOMAINS set, only this instance's names are served (docs/domains.md); a name the
    // database knows (a link domain, an old host) is asked about below, off the await-free lanes.
    const verdict = hostVerdict(req.headers.host, req.url ?? "/");
    if (verdict !== "serve") {
      res.setHeader("request-id", requestId);
      if (verdict === "refuse") return refuseHost(res);
      const served = isServedHost(req.headers.host);
      ready
        .then(async () => ((await served) ? serveWhenReady(handlers, req, res, trustProxy, dev) : refuseHost(res)))
        .catch((error: unknown) => answerFailure(res, requestId, error));
      return;
    }
    const { fastLane } = handlers;
    // A read the caches answer alone is answered without the promise chain (docs/fast-lane.md).
    if (fastLane && serveCachedNow(fastLane, req, res, requestId)) return;
    res.setHeader("request-id", requestId);
    if (fastLane && serveFileNow(fastLane, req, res, requestId)) return;
    if (handlers.assets?.serve(req, res)) return;
    ready.then(() => serveWhenReady(handlers, req, res, trustProxy, dev)).catch((error: unknown) => answerFailure(res, requestId, error));
  };
}

const refuseHost = (res: ServerResponse): void => refuseBeforeNext(res, 404, "not_found", "This host name is not served here.");

/** The fast lane first; what it leaves goes to Next, after the gates Next cannot be trusted with. */
async function serveWhenReady(
  handlers: Handlers,
  req: IncomingMessage,
  res: ServerResponse,
  trustProxy: TrustSetting,
  dev: boolean,
): Promise<void> {
  if (handlers.fastLane && (await handlers.fastLane(req, res))) return;
  // Old links of imported items (docs/migrate.md): before Next, whose pages they may shadow on an old host.
  // Not while the database is known away: the look-up would only wait for it (pages answer 503 below).
  if (!isDown("database") && (await answerOldLink(req, res, handlers.fastLane))) return;
  syncRawHeaders(req, trustProxy);
  if (!isNextMethod(req.method)) {
    return refuseBeforeNext(res, 405, "method_not_allowed", `Method ${req.method} is not allowed here.`, {
      allow: NEXT_METHODS.join(", "),
    });
  }
  if (hasMalformedPath(req.url ?? "/"))
    return refuseBeforeNext(res, 400, "invalid_request", "The request path is not valid percent-encoded UTF-8.");
  let forNext = req;
  if (isFormPost(req)) {
    const verdict = await screenFormPost(req);
    if (!verdict.ok) return refuseBeforeNext(res, verdict.status, verdict.type, verdict.message);
    forNext = verdict.req;
  }
  // While the database is known away pages answer 503 at once (docs/faults.md).
  if (isDown("database") && isPageRequest(forNext)) return answerPageUnavailable(res);
  restoreContentLength(res);
  unavailableWhileDown(res);
  // Robots' share pages may come from memory (page-cache.ts); not in development.
  if (dev) await handlers.next!(forNext, res);
  else await servePage(forNext, res, pageRender(handlers, forNext, res));
}

/**
 * Share pages for visitors without a session go out without Next's client runtime
 * (share-islands.ts); so do the gallery and settings for their owner, with the dashboard's own
 * bundle (dashboard-islands.ts). A robot's page is cached as rewritten.
 */
function pageRender(handlers: Handlers, req: IncomingMessage, res: ServerResponse): () => Promise<void> {
  const handle = () => handlers.next!(req, res);
  if (servesWithoutRuntime(req)) return () => serveWithoutRuntime(req, res, handle, handlers.inlines);
  const islands = servesDashboardIslands(req) ? handlers.islands?.() : null;
  if (islands) return () => serveDashboardIslands(req, res, handle, islands, handlers.inlines);
  return handle;
}

function createHttpServer(onRequest: (req: IncomingMessage, res: ServerResponse) => void): Server {
  const server = createServer(onRequest);
  // An `Expect` other than 100-continue: Node answers a bare 417 (no body, no request-id)
  // unless someone listens. We serve the request as if the header were absent, which
  // RFC 9110 (section 10.1.1) allows, so every reply stays ours (docs/fuzzing.md).
  server.on("checkExpectation", onRequest);
  server.on("clientError", answerClientError);
  return server;
}

function listen(server: Server, port: number, hostname: string | undefined): Promise<AddressInfo> {
  return new Promise<AddressInfo>((done, fail) => {
    server.once("error", fail);
    server.listen(port, hostname, () => {
      server.off("error", fail);
      done(server.address() as AddressInfo);
    });
  });
}

/** Stops accepting, waits for requests in flight (up to SHUTDOWN_GRACE_MS), then stops Next; idempotent. */
function closeOnce(server: Server, app: { close(): Promise<void> }): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= (async () => {
      const closed = new Promise<void>((done) => server.close(() => done()));
      // Idle keep-alive sockets would hold close() open: dropped as they fall idle, all at the grace's end.
      const sweep = setInterval(() => server.closeIdleConnections(), 250);
      const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      server.closeIdleConnections();
      await closed;
      clearInterval(sweep);
      clearTimeout(force);
      await app.close();
    })();
    return closing;
  };
}

export function shutdownOnSignals(server: RunningServer, log: (message: string) => void = console.error): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(1);
    stopping = true;
    log(`${signal}: shutting down`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("shutdown failed", error);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
