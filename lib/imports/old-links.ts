/**
 * Old links of imported items (docs/migrate.md, "Old links"): a request whose Host is an old
 * host an import recorded is looked up in the redirect table by its path; on any other host
 * (this instance's own), only a path under none of this service's own top-level segments is,
 * so the peer's `/u/{name}` never shadows a profile page `/u/{username}` here.
 *
 * A hit is a 301 to the share page or the short link, or, for an old raw-file address, the
 * file itself (the server hands the request to /cdn) so that embeds in old messages render.
 * A private, gated (view limit, password) or moderated post is never served raw: its old
 * raw address leads to the share page, whose rules then apply.
 */
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { shortUrlOf } from "@/lib/links/links";
import { normaliseHost, normalisePath } from "./source";

/**
 * The first path segments this service answers on its own hosts (app/'s top-level routes,
 * the fast lane's surfaces and the files Next serves at the root).
 * tests/imports/old-links.test.ts keeps it equal to app/'s entries.
 */
export const OWN_SEGMENTS: ReadonlySet<string> = new Set([
  "",
  "_next",
  "admin",
  "api",
  "cancel-email-change",
  "cdn",
  "confirm-email",
  "cron",
  "dashboard",
  "discover",
  "f",
  "favicon.ico",
  "forgot-password",
  "healthz",
  "icon.svg",
  "manifest.webmanifest",
  "metrics",
  "oembed",
  "p",
  "register",
  "relay",
  "reset-password",
  "robots.txt",
  "s",
  "setup",
  "share-target",
  "signin",
  "signout",
  "u",
]);

/** How long the list of old hosts is trusted before it is read again. */
const HOSTS_TTL_MS = 5_000;
/**
 * A Host that is neither listed nor this instance's own (an old domain pointed here just
 * after its import) reads the list again after this long: an import's host answers within
 * a second, at the cost of at most one small read a second while such requests arrive.
 */
const UNKNOWN_HOST_RECHECK_MS = 1_000;
let hostCache: { hosts: ReadonlySet<string>; at: number } | null = null;
let loading: Promise<ReadonlySet<string>> | null = null;

/** The host names this instance answers as itself: their traffic never re-reads the list. */
function ownHosts(): ReadonlySet<string> {
  const e = env();
  const configured = [e.PUBLIC_URL, e.apiUrl, e.relayUrl, e.cdnUrl, e.shareUrl, e.shortUrl].flatMap((url) =>
    URL.canParse(url) ? [new URL(url).hostname.toLowerCase()] : [],
  );
  // Loopback names reach this instance whatever PUBLIC_URL says (health checks, a local proxy).
  return new Set([...configured, "localhost", "127.0.0.1", "[::1]", "::1"]);
}

async function oldHosts(now: number, host: string | null): Promise<ReadonlySet<string>> {
  const fresh = hostCache !== null && now - hostCache.at < HOSTS_TTL_MS;
  const unknown = host !== null && hostCache !== null && !hostCache.hosts.has(host) && !ownHosts().has(host);
  if (hostCache && fresh && !(unknown && now - hostCache.at >= UNKNOWN_HOST_RECHECK_MS)) return hostCache.hosts;
  loading ??= db()
    .importHost.findMany({ select: { host: true } })
    .then((rows) => {
      hostCache = { hosts: new Set(rows.map((r) => r.host)), at: Date.now() };
      return hostCache.hosts;
    })
    .finally(() => {
      loading = null;
    });
  return loading;
}

/** Forgets the cached host list (tests, and the import in the same process). */
export function forgetOldHosts(): void {
  hostCache = null;
}

export type OldLinkAnswer = { kind: "redirect"; location: string } | { kind: "file"; cdnPath: string };

/** What an old address answers, or null when it is not one (the request goes on as usual). */
export async function resolveOldLink(hostHeader: string | undefined, rawPath: string, now = Date.now()): Promise<OldLinkAnswer | null> {
  const host = hostHeader ? normaliseHost(hostHeader) : null;
  const hosts = await oldHosts(now, host);
  if (hosts.size === 0) return null;
  const path = normalisePath(rawPath);
  const select = {
    target: true,
    shortLink: { select: { code: true } },
    post: {
      select: {
        code: true,
        privacy: true,
        moderated: true,
        maxViews: true,
        passwordHash: true,
        files: { select: { name: true }, orderBy: { index: "asc" as const }, take: 1 },
      },
    },
  };
  let row;
  if (host && hosts.has(host)) row = await db().importRedirect.findUnique({ where: { host_path: { host, path } }, select });
  else if (!OWN_SEGMENTS.has(path.split("/")[1] ?? "")) {
    // This instance's own host: the old path answers only where this service has no page of its own.
    row = await db().importRedirect.findFirst({ where: { path }, select, orderBy: { createdAt: "asc" } });
  }
  if (!row) return null;
  if (row.shortLink) return { kind: "redirect", location: shortUrlOf(row.shortLink.code) };
  const post = row.post;
  if (!post) return null;
  const page = { kind: "redirect" as const, location: `${env().shareUrl}/${post.code}` };
  const file = post.files[0];
  const open = post.privacy !== "private" && !post.moderated && post.maxViews === null && post.passwordHash === null;
  if (row.target !== "file" || !file || !open) return page;
  return { kind: "file", cdnPath: `/cdn/${post.code}/${encodeURIComponent(file.name)}` };
}
