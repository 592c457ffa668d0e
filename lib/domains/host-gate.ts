/**
 * The host check of issue 40 §1 (docs/domains.md): once the operator lists DOMAINS, a
 * request is served only on a name this instance is: PUBLIC_URL's and the other configured
 * URLs' hosts, loopback and the machine's own addresses (everything, as before), a listed
 * domain (what it serves), a proven link domain or an imported old host (as before). Any
 * other Host gets 404, so no name pointed at the server serves its pages. With DOMAINS empty
 * (the default) every Host is served, as before.
 *
 * `hostVerdict` is synchronous, for the server's await-free lanes; the names that need the
 * database (link domains, old hosts) are "ask", answered by `isServedHost`.
 */
import type { DomainServes } from "@/lib/config/domains";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { bareHost, configuredUrlHost, isLinkDomainHost, isOwnHost } from "./own-hosts";

export type HostVerdict = "serve" | "refuse" | "ask";

/** The health check answers on any name (load balancers ask by address or by their own name). */
const ANY_HOST = /^\/healthz(?:[/?]|$)/;
const FILES = /^\/cdn(?:[/?]|$)/;
const LINKS = /^\/s\//;
/** Share pages, folder pages and profiles, their oEmbed, and what they load (Next's assets, icons, the islands' script). */
const PAGES =
  /^\/(?:p\/|f\/|u\/|oembed(?:[/?]|$)|_next\/|favicon\.ico|icon\.svg|icons\/|default-avatar\.svg|share-islands\.js|robots\.txt|manifest\.webmanifest)/;

function surfaceOf(path: string): DomainServes | null {
  if (FILES.test(path)) return "files";
  if (LINKS.test(path)) return "links";
  return PAGES.test(path) ? "pages" : null;
}

const PLAIN_HOST = /^([a-z0-9-]+(?:\.[a-z0-9-]+)*)\.?(?::\d{1,5})?$/i;

/** The host name of a Host header value (no port, lower case), or null when it has none. */
export function hostOfHeader(hostHeader: string | undefined): string | null {
  if (!hostHeader) return null;
  // The usual `name` or `name:port`, without the URL parser (this runs on every request).
  const plain = PLAIN_HOST.exec(hostHeader);
  if (plain) return plain[1].toLowerCase();
  try {
    return bareHost(new URL(`http://${hostHeader}`).hostname) || null;
  } catch {
    return null;
  }
}

/** Whether a request for `path` on `hostHeader` is served, refused, or needs the database (isServedHost). */
export function hostVerdict(hostHeader: string | undefined, path: string): HostVerdict {
  const domains = env().DOMAINS;
  if (domains.length === 0 || ANY_HOST.test(path)) return "serve";
  const host = hostOfHeader(hostHeader);
  if (!host) return "refuse";
  const domain = domains.find((d) => d.name === host);
  if (domain && !domain.all && !configuredUrlHost(host)) {
    const surface = surfaceOf(path);
    return surface && domain.serves.includes(surface) ? "serve" : "refuse";
  }
  return domain || isOwnHost(host) ? "serve" : "ask";
}

/** How long a database answer about a name is kept (a new link domain or import is served within it). */
const ASKED_TTL_MS = 5_000;
const asked = new Map<string, { served: Promise<boolean>; at: number }>();

/** Whether `host` is a proven link domain or an imported old host (served as before). */
export function isServedHost(hostHeader: string | undefined, now = Date.now()): Promise<boolean> {
  const host = hostOfHeader(hostHeader);
  if (!host) return Promise.resolve(false);
  const kept = asked.get(host);
  if (kept && now - kept.at < ASKED_TTL_MS) return kept.served;
  // Bounded: a flood of made-up names costs at most one small read each, never memory.
  if (asked.size >= 1_000) asked.clear();
  const served = lookUp(host);
  asked.set(host, { served, at: now });
  // A failed read is not remembered: the next request asks again.
  served.catch(() => asked.delete(host));
  return served;
}

async function lookUp(host: string): Promise<boolean> {
  if (await isLinkDomainHost(host)) return true;
  return (await db().importHost.findUnique({ where: { host }, select: { host: true } })) !== null;
}

/** Forgets the remembered answers (tests). */
export function forgetServedHosts(): void {
  asked.clear();
}
