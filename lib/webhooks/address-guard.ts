/**
 * The SSRF guard (docs/webhooks.md, "Address guard"): the host is resolved once, every address must
 * be public, and the connection goes to that address, so DNS rebinding cannot answer differently.
 */
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { DomainError } from "@/lib/errors";

const blocked = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], // "this network"; 0.0.0.0 reaches the local host on Linux
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard-only
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique local (ULA)
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
] as const) {
  blocked.addSubnet(net, prefix, "ipv6");
}

export function embeddedIpv4(address: string): string | null {
  const groups = expandIpv6(address);
  if (!groups) return null;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), 64:ff9b::a.b.c.d (NAT64)
  if (zeros(0, 5) && (groups[5] === 0xffff || groups[5] === 0)) return v4(groups[6], groups[7]);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return v4(groups[6], groups[7]);
  // 2002:AABB:CCDD::/16 (6to4)
  if (groups[0] === 0x2002) return v4(groups[1], groups[2]);
  return null;
}

function expandIpv6(address: string): number[] | null {
  let text = address.toLowerCase().split("%")[0];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const p = dotted[1].split(".").map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((p[0] << 8) | p[1]).toString(16)}:${((p[2] << 8) | p[3]).toString(16)}`;
  }
  const [head, tail] = text.split("::");
  const part = (s: string | undefined) => (s ? s.split(":").map((g) => parseInt(g, 16)) : []);
  const a = part(head);
  const b = part(tail);
  const fill = text.includes("::") ? 8 - a.length - b.length : 0;
  const groups = [...a, ...new Array<number>(Math.max(0, fill)).fill(0), ...b];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

export interface GuardOptions {
  allowPrivate?: boolean;
  allowList?: readonly string[];
}

function allowListOf(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [net, bits] = entry.split("/");
    const family = isIP(net);
    if (!family) continue;
    const type = family === 4 ? "ipv4" : "ipv6";
    if (bits === undefined) list.addAddress(net, type);
    else list.addSubnet(net, Number(bits), type);
  }
  return list;
}

export function isAllowedAddress(address: string, opts: GuardOptions = {}): boolean {
  if (opts.allowPrivate) return true;
  const family = isIP(address);
  if (!family) return false;
  const allowed = opts.allowList?.length ? allowListOf(opts.allowList) : null;
  const type = family === 4 ? "ipv4" : "ipv6";
  if (allowed?.check(address, type)) return true;
  if (blocked.check(address, type)) return false;
  if (family === 6) {
    const inner = embeddedIpv4(address);
    if (inner) return isAllowedAddress(inner, opts);
  }
  return true;
}

export interface ResolvedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** http(s), no credentials, a host; 400 invalid_request otherwise. */
export function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DomainError("invalid_request", "The webhook URL is not a valid URL.");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new DomainError("invalid_request", "The webhook URL must start with https:// or http://.");
  if (url.username || url.password) throw new DomainError("invalid_request", "The webhook URL must not carry a user name or password.");
  if (!url.hostname) throw new DomainError("invalid_request", "The webhook URL has no host.");
  return url;
}

/** One refused address refuses the URL: a round-robin answer must not smuggle in a private one. */
export async function resolveWebhookTarget(raw: string, opts: GuardOptions = {}): Promise<ResolvedTarget> {
  return resolveGuardedUrl(parseWebhookUrl(raw), opts, { name: "webhook", refusal: "forbidden" });
}

/** The guard for any outbound URL (webhooks, docs/url-uploads.md); `name` words the messages. */
export async function resolveGuardedUrl(
  url: URL,
  opts: GuardOptions,
  words: { name: string; refusal: "forbidden" | "invalid_request" },
): Promise<ResolvedTarget> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw new DomainError("invalid_request", `The ${words.name} host '${host}' does not resolve.`);
    }
  }
  if (!addresses.length) throw new DomainError("invalid_request", `The ${words.name} host '${host}' does not resolve.`);
  const refused = addresses.find((a) => !isAllowedAddress(a.address, opts));
  if (refused) {
    throw new DomainError(
      words.refusal,
      `The ${words.name} URL points at ${refused.address}, a private, loopback or link-local address; the operator has not allowed those (WEBHOOK_ALLOW_PRIVATE).`,
    );
  }
  return { url, address: addresses[0].address, family: addresses[0].family === 6 ? 6 : 4 };
}
