/**
 * The client address, used for per-IP limits, view de-duplication, sign-in attempts and
 * reports; the one home of its rule (docs/rate-limits.md, "Client IP"): the socket's
 * address, or with TRUST_PROXY=1 the left-most X-Forwarded-For entry, which is the original
 * client as the first proxy saw it; TRUST_PROXY=hops:<n> or a list of trusted ranges walk
 * the header from the right instead, and TRUST_PROXY_HEADER reads a platform's own header
 * (lib/config/trust-proxy.ts). Without TRUST_PROXY the headers are ignored, since anyone
 * can send them.
 *
 * Route handlers and pages get no socket, so the custom server decides the address once
 * (`resolveClientIp`) and passes it in the `x-client-ip` request header, overwriting any
 * value the client sent; the API, Relay, pages and server actions read it back with
 * `requestClientIp`.
 */
import { BlockList, isIP } from "node:net";
import { NAMED, type TrustedRange, type TrustProxy } from "@/lib/config/trust-proxy";

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

/** TRUST_PROXY as the server holds it: the parsed rule, or a plain on/off (true: the spec's left-most rule). */
export type TrustSetting = TrustProxy | boolean;

const asRule = (trust: TrustSetting): TrustProxy => (trust === true ? { kind: "leftmost" } : trust === false ? { kind: "off" } : trust);

/** Whether TRUST_PROXY is on at all (X-Forwarded-For then kept for Next rather than replaced). */
export const trustsProxy = (trust: TrustSetting): boolean => asRule(trust).kind !== "off";

/** A BlockList per range list, built once (the list is fixed for the process). */
const blockLists = new WeakMap<readonly TrustedRange[], BlockList>();
function blockListOf(ranges: readonly TrustedRange[]): BlockList {
  let list = blockLists.get(ranges);
  if (!list) {
    list = new BlockList();
    for (const r of ranges) list.addSubnet(r.address, r.prefix, r.family);
    blockLists.set(ranges, list);
  }
  return list;
}
function inRanges(ranges: readonly TrustedRange[], ip: string): boolean {
  const version = isIP(ip);
  return version !== 0 && blockListOf(ranges).check(ip, version === 4 ? "ipv4" : "ipv6");
}

/** X-Forwarded-For's entries, left to right ("" for one that is not an address). */
function forwardedEntries(forwardedFor: string | string[] | null | undefined): string[] {
  if (forwardedFor === undefined || forwardedFor === null) return [];
  // Repeated headers are joined in order, so the first value holds the left-most entry.
  const joined = Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor;
  if (joined.trim() === "") return [];
  return joined.split(",").map((entry) => {
    const ip = normalizeIp(entry);
    return isIP(ip) ? ip : "";
  });
}

/**
 * Walks [socket, X-Forwarded-For right to left] as Express's `trust proxy` does: past every
 * trusted hop, the first untrusted address is the client. An entry that is not an address
 * stops the walk at the last good one (a garbage value must not become a free rate-limit key).
 */
function walkFromRight(fromSocket: string, entries: string[], trusted: (ip: string, hop: number) => boolean): string {
  const chain = [fromSocket, ...entries.slice().reverse()];
  let client = fromSocket;
  for (let hop = 0; hop < chain.length; hop++) {
    const ip = chain[hop];
    if (!ip) return client;
    client = ip;
    if (!trusted(ip, hop)) return client;
  }
  return client;
}

/** Loopback, link-local and unique-local ranges: where a proxy of `1` or `hops:<n>` sits. */
const PRIVATE_PEERS: readonly TrustedRange[] = ["loopback", "linklocal", "uniquelocal"].flatMap((name) =>
  NAMED[name].map((range) => {
    const [address, prefix] = range.split("/");
    return { address, prefix: Number(prefix), family: isIP(address) === 4 ? ("ipv4" as const) : ("ipv6" as const) };
  }),
);

/**
 * Whether the socket's peer may set TRUST_PROXY_HEADER (issue 39 §4): with a range list, a
 * peer in it; with `1` or `hops:<n>`, which name no proxy, a peer on this machine or a private
 * network, so a client reaching the port from outside cannot name its own address.
 */
function headerPeerTrusted(rule: TrustProxy, fromSocket: string): boolean {
  return inRanges(rule.kind === "ranges" ? rule.ranges : PRIVATE_PEERS, fromSocket);
}

/**
 * @param socketAddress `req.socket.remoteAddress` (undefined once the socket closed)
 * @param forwardedFor  the raw X-Forwarded-For header value(s)
 * @param trust         TRUST_PROXY (and TRUST_PROXY_HEADER) as parsed by lib/config/trust-proxy.ts
 * @param headerValue   the TRUST_PROXY_HEADER's value, when one is configured
 */
export function resolveClientIp(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trust: TrustSetting,
  headerValue?: string | string[],
): string {
  const fromSocket = socketAddress ? normalizeIp(socketAddress) : "";
  const rule = asRule(trust);
  if (rule.kind === "off") return fromSocket;
  // The platform's own header (CF-Connecting-IP...), believed only from a trusted peer.
  if (rule.header && headerValue !== undefined && headerPeerTrusted(rule, fromSocket)) {
    const ip = normalizeIp(Array.isArray(headerValue) ? (headerValue[0] ?? "") : headerValue);
    if (isIP(ip)) return ip;
  }
  if (rule.kind === "leftmost") return leftMostForwarded(forwardedFor) || fromSocket;
  const entries = forwardedEntries(forwardedFor);
  if (rule.kind === "hops") return walkFromRight(fromSocket, entries, (_ip, hop) => hop < rule.hops);
  return walkFromRight(fromSocket, entries, (ip) => inRanges(rule.ranges, ip));
}

/** The left-most X-Forwarded-For entry when it is an address, else "". */
function leftMostForwarded(forwardedFor: string | string[] | null | undefined): string {
  return forwardedEntries(forwardedFor)[0] ?? "";
}

/**
 * The client address of a request as the custom server set it (`x-client-ip`), or
 * "unknown". The X-Forwarded-For fallback only matters for a Next server running without
 * ours, where Next fills that header from the socket.
 */
export function requestClientIp(headers: { get(name: string): string | null }): string {
  return normalizeIp(headers.get("x-client-ip") ?? "") || leftMostForwarded(headers.get("x-forwarded-for")) || "unknown";
}
