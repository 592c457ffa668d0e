/**
 * The API, Relay and direct-file surfaces served straight from node:http, around Next.js: Next's
 * router and Web-stream copies were most of a small file's serving time (docs/performance.md,
 * "The fast lane"). Pages and next-auth still go through Next; app/'s route handlers stay for `next dev`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import type { ReadableStream as NodeWebReadableStream } from "node:stream/web";
import type { ReadRequest, Reply } from "@/lib/http/dispatch";
import { attachRequestBody, nativeResponseBody } from "@/lib/http/node-bridge";
import { CONTENT_LENGTH_CARRIER } from "@/lib/http/respond";
import { metrics, recordRequest, recordServedBytes } from "@/lib/metrics/registry";
import { serveCdnFile } from "./cdn-lane";
import { encodeTextBody } from "./compress";
import { NodeHeaders, nodeRequest } from "./node-request";

type Handler = (request: Request) => Promise<Reply | Response>;

export interface FastLane {
  (req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** A /cdn file request taken without a promise (cdn-lane.ts); false sends it through the lane above. */
  serveFile(req: IncomingMessage, res: ServerResponse): boolean;
  /** An API or Relay GET the read caches answer alone, before any promise; false means nothing was counted. */
  serveCached(req: IncomingMessage, res: ServerResponse): boolean;
}

/** Paths left to Next although they sit under a fast prefix. */
const NEXT_OWNED = /^\/api\/auth(?:\/|$)/;

export async function createFastLane(): Promise<FastLane> {
  const [{ dispatcher }, { serveCdn }] = await Promise.all([import("@/lib/routes"), import("@/lib/routes/cdn")]);
  const apiDispatcher = dispatcher("api");
  const relayDispatcher = dispatcher("relay");
  const api = apiDispatcher.reply;
  const relay = relayDispatcher.reply;

  const pick = (path: string): Handler | null => {
    if (isUnder(path, "/cdn")) return serveCdn;
    if (isUnder(path, "/api")) return NEXT_OWNED.test(path) ? null : api;
    if (isUnder(path, "/relay")) return relay;
    return null;
  };

  const serve = async (req: IncomingMessage, res: ServerResponse, url: string, handler: Handler): Promise<void> => {
    const answer = await handler(toRequest(req, res, url));
    if (answer instanceof Response) await send(req, res, answer);
    else await sendReply(req, res, answer);
  };

  const lane = (async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const handler = pick(query === -1 ? url : url.slice(0, query));
    if (!handler) return false;
    if (handler === serveCdn) watchFileReply(res);
    await serve(req, res, url, handler);
    return true;
  }) as FastLane;
  lane.serveFile = (req, res) => {
    const url = req.url ?? "/";
    if (!url.startsWith("/cdn/")) return false;
    const mine = serveCdnFile(req, res, url, () => serve(req, res, url, serveCdn));
    // 'finish' comes after this returns even when the reply was written synchronously.
    if (mine) watchFileReply(res);
    return mine;
  };
  lane.serveCached = (req, res) => {
    if (req.method !== "GET") return false;
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const path = query === -1 ? url : url.slice(0, query);
    const target = isUnder(path, "/api")
      ? NEXT_OWNED.test(path)
        ? null
        : apiDispatcher
      : isUnder(path, "/relay")
        ? relayDispatcher
        : null;
    if (!target) return false;
    const reply = target.replyNow(readRequest(req, url));
    if (!reply) return false;
    writeReply(req, res, reply);
    return true;
  };
  return lane;
}

/** A /cdn reply for GET /metrics, counted once its body is sent (docs/metrics.md). */
function watchFileReply(res: ServerResponse): void {
  if (!metrics()) return;
  const started = performance.now();
  res.once("finish", () => {
    recordRequest("cdnFile", "cdn", res.statusCode, (performance.now() - started) / 1000);
    const length = Number(res.getHeader("content-length"));
    if (res.req.method !== "HEAD" && (res.statusCode === 200 || res.statusCode === 206) && length > 0) recordServedBytes("cdn", length);
  });
}

const isUnder = (path: string, prefix: string): boolean =>
  path.startsWith(prefix) && (path.length === prefix.length || path.charCodeAt(prefix.length) === 47) /* / */;

// The origin only feeds `request.url`; handlers build absolute URLs from PUBLIC_URL.
const absolute = (url: string): string => `http://localhost${url.startsWith("/") ? url : `/${url}`}`;

function toRequest(req: IncomingMessage, res: ServerResponse, url: string): Request {
  const request = nodeRequest(req, res, absolute(url));
  return req.method === "GET" || req.method === "HEAD" ? request : attachRequestBody(request, req);
}

function readRequest(req: IncomingMessage, url: string): ReadRequest {
  return { method: "GET", url: absolute(url), headers: new NodeHeaders(req.headers) };
}

async function sendReply(req: IncomingMessage, res: ServerResponse, reply: Reply): Promise<void> {
  if (reply.body?.kind === "response") return send(req, res, reply.body.response, reply.headers);
  writeReply(req, res, reply);
}

function writeReply(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
  if (reply.body?.kind === "response") throw new Error("writeReply: a Response body goes through send()");
  const bodyless = req.method === "HEAD" || reply.status === 204 || reply.status === 304 || !reply.body;
  const head: Record<string, string> = reply.headers;
  // Compressed when the client accepts it (a HEAD gets the headers its GET would).
  const body =
    reply.body && reply.status !== 204 && reply.status !== 304
      ? encodeTextBody(req.headers["accept-encoding"], head, reply.body.text)
      : null;
  res.writeHead(reply.status, head);
  res.end(bodyless || body === null ? undefined : body);
}

async function send(req: IncomingMessage, res: ServerResponse, response: Response, replaced?: Record<string, string>): Promise<void> {
  const head: Record<string, string | string[]> = {};
  if (replaced) Object.assign(head, replaced);
  else {
    response.headers.forEach((value, name) => {
      if (name !== "set-cookie") head[name] = value;
    });
  }
  delete head[CONTENT_LENGTH_CARRIER];
  delete head["set-cookie"];
  const cookies = response.headers.getSetCookie();
  if (cookies.length) head["set-cookie"] = cookies;

  const native = nativeResponseBody(response);
  const bodyless = req.method === "HEAD" || response.status === 204 || response.status === 304 || !response.body;
  const text = native?.kind === "text" && !bodyless ? encodeTextBody(req.headers["accept-encoding"], head, native.text) : null;
  if (native?.kind === "bytes" && !bodyless) head["content-length"] = String(native.bytes.byteLength);
  // A body we stopped reading (a 413 mid-upload) is drained after the reply (linger.ts).
  res.writeHead(response.status, response.statusText || undefined, head);
  if (bodyless) {
    if (native?.kind === "stream") native.stream.destroy();
    else void response.body?.cancel().catch(() => {});
    res.end();
    return;
  }
  try {
    if (text !== null) {
      res.end(text);
    } else if (native?.kind === "bytes") {
      res.end(native.bytes);
    } else if (native?.kind === "stream") {
      await pipeline(native.stream, res);
    } else {
      await pipeline(Readable.fromWeb(response.body as unknown as NodeWebReadableStream<Uint8Array>), res);
    }
  } catch {
    // The client went away mid-body: pipeline has closed both ends; nothing to answer.
  }
}
