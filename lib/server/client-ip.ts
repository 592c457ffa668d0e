/**
 * The client address rule (docs: README "TRUST_PROXY"): the socket's address, or with
 * TRUST_PROXY the left-most X-Forwarded-For entry, which is the original client as the
 * first proxy saw it. Without TRUST_PROXY the header is ignored, since anyone can send it.
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
export function clientIp(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustProxy: boolean,
): string {
  const fromSocket = socketAddress ? normalizeIp(socketAddress) : "";
  if (!trustProxy || forwardedFor === undefined) return fromSocket;
  // Repeated headers are joined in order, so the first value holds the left-most entry.
  const joined = Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor;
  const leftMost = normalizeIp(joined.split(",")[0] ?? "");
  // A garbage entry must not become a rate-limit key that an attacker can vary freely.
  return isIP(leftMost) ? leftMost : fromSocket;
}
