/**
 * Hosts this instance answers itself (docs/short-links.md): a short link to one could loop
 * through `/s/` or hide where it goes. A DNS name pointing here is not seen; the redirect's loop
 * guard (links.ts) stops such a chain.
 */
import { BlockList, isIP } from "node:net";
import { networkInterfaces } from "node:os";
import { type Env, env } from "@/lib/config/env";
import { db } from "@/lib/db/client";

const LOCAL = new BlockList();
LOCAL.addSubnet("127.0.0.0", 8, "ipv4");
LOCAL.addSubnet("0.0.0.0", 8, "ipv4");
LOCAL.addAddress("::1", "ipv6");
LOCAL.addAddress("::", "ipv6");
// IPv4-mapped IPv6 (`[::ffff:127.0.0.1]` as the URL parser writes it: `[::ffff:7f00:1]`).
LOCAL.addSubnet("::ffff:127.0.0.0", 104, "ipv6");
LOCAL.addSubnet("::ffff:0.0.0.0", 104, "ipv6");

export const bareHost = (hostname: string): string =>
  hostname
    .toLowerCase()
    .replace(/\.$/, "")
    .replace(/^\[(.*)\]$/, "$1");

const hostOf = (url: string): string | null => {
  try {
    return bareHost(new URL(url).hostname);
  } catch {
    return null;
  }
};

/** Once per configuration: the host check asks on every request. */
const urlHostsOf = new WeakMap<Env, Set<string>>();

function urlHosts(): Set<string> {
  const e = env();
  let hosts = urlHostsOf.get(e);
  if (!hosts) {
    hosts = new Set(
      [e.PUBLIC_URL, e.apiUrl, e.relayUrl, e.cdnUrl, e.shareUrl, e.shortUrl].map(hostOf).filter((h): h is string => h !== null),
    );
    urlHostsOf.set(e, hosts);
  }
  return hosts;
}

export const configuredUrlHost = (host: string): boolean => urlHosts().has(bareHost(host));

const configuredHostsOf = new WeakMap<Env, Set<string>>();

function configuredHosts(): Set<string> {
  const e = env();
  let hosts = configuredHostsOf.get(e);
  if (!hosts) {
    hosts = new Set([...urlHosts(), ...e.DOMAINS.map((d) => d.name)]);
    configuredHostsOf.set(e, hosts);
  }
  return hosts;
}

/** Read per call: a container may get its address late. */
function interfaceAddresses(): Set<string> {
  const addresses = new Set<string>();
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) addresses.add(bareHost(a.address.split("%")[0]));
  return addresses;
}

export function isOwnHost(hostname: string): boolean {
  const host = bareHost(hostname);
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const family = isIP(host);
  if (family !== 0) {
    if (LOCAL.check(host, family === 4 ? "ipv4" : "ipv6")) return true;
    if (interfaceAddresses().has(host)) return true;
  }
  return configuredHosts().has(host);
}

export async function isLinkDomainHost(hostname: string): Promise<boolean> {
  const host = bareHost(hostname);
  if (isIP(host) !== 0) return false;
  const owner = await db().user.findFirst({ where: { linkDomain: host, linkDomainVerifiedAt: { not: null } }, select: { id: true } });
  return owner !== null;
}
