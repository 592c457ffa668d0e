/**
 * Request id and client address (`x-client-ip`) stamped before anything reads the request,
 * replacing what the client sent: else a client could name its own address and spend other
 * people's per-IP limits. Done by server.ts, or next-start.ts under plain `next start`.
 */
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { normalizeIp, resolveClientIp, trustsProxy, type TrustSetting } from "@/lib/http/client-ip";
import { newRequestId } from "@/lib/http/request-id";

/**
 * Stamps `req.headers` only (all the fast lane reads; syncRawHeaders makes the raw list agree
 * later). The response gets the id from whoever answers: a header set ahead of writeHead sends
 * every header through Node's slower path (docs/performance.md, "Cached reads on Node's request").
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
 * With `TRUST_PROXY=1` or `hops:<n>` a request without X-Forwarded-For reached the port directly
 * and could forge the header: logged once (docs/operations.md, "Client addresses behind proxies").
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

/** Makes `req.rawHeaders` agree with stampRequest, so no reader of the raw list (Next) sees the client's values. */
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
