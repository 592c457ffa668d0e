/**
 * Old links of imported items (docs/migrate.md, "Old links"). On this instance's own hosts only
 * paths under none of our segments answer, so the peer's `/u/{name}` never shadows a profile.
 * A private, gated or moderated post is never served raw: its raw address leads to the share page.
 */
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { shortUrlOf } from "@/lib/links/links";
import { normaliseHost, normalisePath } from "./source";

/** The first path segments this service answers; tests/imports/old-links.test.ts keeps it equal to app/'s entries. */
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

const HOSTS_TTL_MS = 5_000;
/** An unknown Host re-reads the list after this long: a new import's host answers within a second. */
const UNKNOWN_HOST_RECHECK_MS = 1_000;
let hostCache: { hosts: ReadonlySet<string>; at: number } | null = null;
let loading: Promise<ReadonlySet<string>> | null = null;

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

export function forgetOldHosts(): void {
  hostCache = null;
}

export type OldLinkAnswer = { kind: "redirect"; location: string } | { kind: "file"; cdnPath: string };

/** Null when not an old address (the request goes on as usual). */
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
