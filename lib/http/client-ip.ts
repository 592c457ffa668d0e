/**
 * The client address, the one home of its rule (docs/rate-limits.md, "Client IP"). Handlers
 * and pages get no socket, so the custom server decides it once and passes it in `x-client-ip`,
 * overwriting what the client sent; `requestClientIp` reads it back.
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

export type TrustSetting = TrustProxy | boolean;

const asRule = (trust: TrustSetting): TrustProxy => (trust === true ? { kind: "leftmost" } : trust === false ? { kind: "off" } : trust);

/** Whether TRUST_PROXY is on (X-Forwarded-For then kept for Next rather than replaced). */
export const trustsProxy = (trust: TrustSetting): boolean => asRule(trust).kind !== "off";

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
 * Walks [socket, X-Forwarded-For right to left] as Express's `trust proxy` does. An entry that is
 * not an address stops the walk at the last good one: garbage must not become a free rate-limit key.
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
 * Whether the peer may set TRUST_PROXY_HEADER (issue 39 §4): with `1` or `hops:<n>`, which name
 * no proxy, only a peer on this machine or a private network.
 */
function headerPeerTrusted(rule: TrustProxy, fromSocket: string): boolean {
  return inRanges(rule.kind === "ranges" ? rule.ranges : PRIVATE_PEERS, fromSocket);
}

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

function leftMostForwarded(forwardedFor: string | string[] | null | undefined): string {
  return forwardedEntries(forwardedFor)[0] ?? "";
}

/** `x-client-ip` as the custom server set it; X-Forwarded-For only for a Next server running without ours. */
export function requestClientIp(headers: { get(name: string): string | null }): string {
  return normalizeIp(headers.get("x-client-ip") ?? "") || leftMostForwarded(headers.get("x-forwarded-for")) || "unknown";
}
