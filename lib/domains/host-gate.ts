/**
 * The host check (docs/domains.md): with DOMAINS listed, a Host this instance is not gets 404, so
 * no name pointed at the server serves its pages. `hostVerdict` is synchronous for the await-free
 * lanes; names needing the database are "ask" (`isServedHost`).
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

const ASKED_TTL_MS = 5_000;
const asked = new Map<string, { served: Promise<boolean>; at: number }>();

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

export function forgetServedHosts(): void {
  asked.clear();
}
