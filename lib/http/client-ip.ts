/**
 * The client address, used for per-IP limits, view de-duplication, sign-in attempts and
 * reports; the one home of its rule (docs/rate-limits.md, "Client IP"): the socket's
 * address, or with TRUST_PROXY the left-most X-Forwarded-For entry, which is the original
 * client as the first proxy saw it. Without TRUST_PROXY the header is ignored, since
 * anyone can send it.
 *
 * Route handlers and pages get no socket, so the custom server decides the address once
 * (`resolveClientIp`) and passes it in the `x-client-ip` request header, overwriting any
 * value the client sent; the API, Relay, pages and server actions read it back with
 * `requestClientIp`.
 */
import { isIP } from "node:net";

/** "::ffff:1.2.3.4" (IPv4 on a dual-stack socket) → "1.2.3.4"; trims brackets and ports. */
export function normalizeIp(raw: string): string {
  let ip = raw.trim();
  // "[2001:db8::1]:443" or "[2001:db8::1]"
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(ip);
  if (bracketed) ip = bracketed[1];
  // "1.2.3.4:5678": some proxies append the client port
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(ip);
  if (v4WithPort) ip = v4WithPort[1];
  if (/^::ffff:\d{1,3}(\.\d{1,3}){3}$/i.test(ip)) ip = ip.slice("::ffff:".length);
  return ip.toLowerCase();
}

/**
 * @param socketAddress `req.socket.remoteAddress` (undefined once the socket closed)
 * @param forwardedFor  the raw X-Forwarded-For header value(s)
 */
export function resolveClientIp(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustProxy: boolean,
): string {
  const fromSocket = socketAddress ? normalizeIp(socketAddress) : "";
  if (!trustProxy) return fromSocket;
  return leftMostForwarded(forwardedFor) || fromSocket;
}

/** The left-most X-Forwarded-For entry when it is an address, else "". */
function leftMostForwarded(forwardedFor: string | string[] | null | undefined): string {
  if (forwardedFor === undefined || forwardedFor === null) return "";
  // Repeated headers are joined in order, so the first value holds the left-most entry.
  const joined = Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor;
  const leftMost = normalizeIp(joined.split(",")[0] ?? "");
  // A garbage entry must not become a rate-limit key that an attacker can vary freely.
  return isIP(leftMost) ? leftMost : "";
}

/**
 * The client address of a request as the custom server set it (`x-client-ip`), or
 * "unknown". The X-Forwarded-For fallback only matters for a Next server running without
 * ours, where Next fills that header from the socket.
 */
export function requestClientIp(headers: { get(name: string): string | null }): string {
  return normalizeIp(headers.get("x-client-ip") ?? "") || leftMostForwarded(headers.get("x-forwarded-for")) || "unknown";
}
