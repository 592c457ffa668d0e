/**
 * What every request gets before anything reads it: a request id, and the client address in
 * `x-client-ip` (lib/http/client-ip.ts), both replacing whatever the client sent under those
 * names. Our server does it first thing (lib/server/server.ts); under plain `next start`,
 * lib/server/next-start.ts does it from instrumentation.ts. Without either, a client could
 * name its own address and spend other people's per-IP limits, or none at all.
 */
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { normalizeIp, resolveClientIp, trustsProxy, type TrustSetting } from "@/lib/http/client-ip";
import { newRequestId } from "@/lib/http/request-id";

/**
 * Stamps the request id and the client address on the request before anything else runs,
 * replacing whatever the client sent under those names. Only `req.headers` is changed
 * here, which is all the fast lane reads; the raw header list is made to agree
 * (syncRawHeaders) before the request goes anywhere else. The response gets the id from
 * whoever answers: the dispatcher's replies carry it, and onRequest sets it on the
 * response for everything else (a header set ahead of writeHead sends every header of
 * the reply through Node's slower per-header path). Both were a few percent of a cached
 * read (docs/performance.md, "Cached reads on Node's request"). Exported for tests.
 */
export function stampRequest(req: IncomingMessage, trustProxy: TrustSetting): string {
  const requestId = newRequestId();
  const headers = req.headers;
  const fromSocket = socketAddress(req.socket);
  const trusting = trustsProxy(trustProxy);
  headers["request-id"] = requestId;
  headers["x-client-ip"] = trusting ? clientIpBehindProxy(req, trustProxy) : fromSocket;
  // Without a trusted proxy, any X-Forwarded-For is the client's own claim; replace it so
  // nothing downstream (Next included) can be fooled by it.
  if (!trusting) {
    if (fromSocket) headers["x-forwarded-for"] = fromSocket;
    else delete headers["x-forwarded-for"];
  }
  return requestId;
}

let warnedDirect = false;

/**
 * With `TRUST_PROXY=1` or `hops:<n>` every request should come through the proxy, which sets
 * X-Forwarded-For. One without it reached the port directly, and such a client can also send
 * a forged header that would be believed: the log says so once (issue 39 §4; docs/operations.md,
 * "Client addresses behind proxies"), naming the fix.
 */
function warnIfDirect(req: IncomingMessage, trust: TrustSetting): void {
  if (warnedDirect || typeof trust === "boolean" || (trust.kind !== "hops" && trust.kind !== "leftmost")) return;
  if (req.headers["x-forwarded-for"] !== undefined) return;
  warnedDirect = true;
  console.warn(
    `TRUST_PROXY=${trust.kind === "hops" ? `hops:${trust.hops}` : "1"}: a request from ${socketAddress(req.socket) || "an unknown address"} came without X-Forwarded-For, so not through the proxy. Bind the service to the proxy only (HOST=127.0.0.1, or a firewall), or list the proxy's addresses instead (TRUST_PROXY=cidr:10.0.0.0/8,...): a client that reaches the port directly could name its own address. This is logged once.`,
  );
}

/** For tests: the next request without the proxy's header warns again. */
export function resetDirectWarning(): void {
  warnedDirect = false;
}

function clientIpBehindProxy(req: IncomingMessage, trust: TrustSetting): string {
  warnIfDirect(req, trust);
  const header = typeof trust === "object" ? trust.header : undefined;
  return resolveClientIp(req.socket.remoteAddress, req.headers["x-forwarded-for"], trust, header ? req.headers[header] : undefined);
}

const STAMPED = ["request-id", "x-client-ip"];
const STAMPED_WITHOUT_PROXY = [...STAMPED, "x-forwarded-for"];

/**
 * Makes `req.rawHeaders` agree with what stampRequest set, so that no reader of the raw
 * list (Next) sees the client's values. One pass over the raw headers.
 */
export function syncRawHeaders(req: IncomingMessage, trustProxy: TrustSetting): void {
  const names = trustsProxy(trustProxy) ? STAMPED : STAMPED_WITHOUT_PROXY;
  const raw = req.rawHeaders;
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (!names.includes(raw[i].toLowerCase())) kept.push(raw[i], raw[i + 1]);
  }
  for (const name of names) {
    const value = req.headers[name];
    if (typeof value === "string") kept.push(name, value);
  }
  raw.splice(0, raw.length, ...kept);
}

/** A keep-alive connection carries many requests: its address is normalized once. */
const socketAddresses = new WeakMap<Socket, string>();
function socketAddress(socket: Socket): string {
  let address = socketAddresses.get(socket);
  if (address === undefined) {
    // Undefined once the socket has closed: not remembered.
    if (!socket.remoteAddress) return "";
    address = normalizeIp(socket.remoteAddress);
    socketAddresses.set(socket, address);
  }
  return address;
}
