/**
 * Short links (docs/short-links.md): a user's named redirects, `/s/{code}` → `url`.
 *
 * A link is gone (the redirect answers 404) past `expiresAt`, once `clickCount` reached
 * `maxClicks`, once deleted, and while its owner is suspended. A link with a click limit
 * spends one click per redirect in one conditional UPDATE (`clickCount < maxClicks`), so
 * concurrent clicks can never pass the limit; a link without one counts at most 3 clicks
 * per IP per hour, as views are counted (lib/social/views.ts).
 */
import { randomInt } from "node:crypto";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { afterPosition, keysetPage, newestFirst, type Page, type Position } from "@/lib/db/paging";
import { DomainError } from "@/lib/errors";
import { isUniqueViolation } from "@/lib/prisma-support";
import { counterStore, VIEW_DEDUP } from "@/lib/ratelimit";
import { bareHost, isLinkDomainHost, isOwnHost } from "@/lib/domains/own-hosts";
import { recordVisit } from "./visits";

export interface LinkRecord {
  id: string;
  code: string;
  userId: string;
  url: string;
  clickCount: number;
  maxClicks: number | null;
  expiresAt: Date | null;
  createdAt: Date;
}

/** A target at most this long: browsers and chat clients handle it, and a row stays small. */
export const LINK_URL_MAX_LENGTH = 2048;
/** A custom code: 3 to 32 letters, digits, `_` or `-` (case matters). */
export const LINK_CODE_PATTERN = /^[A-Za-z0-9_-]{3,32}$/;
export const MAX_CLICKS_LIMIT = 1_000_000_000;
/** Generated codes: 7 characters of [A-Za-z0-9], about 41.7 bits (links are meant to be shared). */
const GENERATED_LENGTH = 7;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

const invalid = (message: string) => new DomainError("invalid_request", message);
export const linkNotFound = () => new DomainError("not_found", "No such link.");

function newLinkCode(): string {
  let code = "";
  for (let i = 0; i < GENERATED_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

/** The short URL of a code: `SHORT_URL/{code}` (default `PUBLIC_URL/s/{code}`). */
export const shortUrlOf = (code: string): string => `${env().shortUrl}/${code}`;

/**
 * Whether a target leads to a short link of this instance: `/s/` on any host name it answers
 * (lib/domains/own-hosts.ts: the server answers `/s/{code}` on every name), and SHORT_URL's path on
 * SHORT_URL's host (a proxy there maps it onto `/s/`; at the root, every path).
 */
function leadsToShortLink(url: URL, ownHost: (hostname: string) => boolean): boolean {
  const path = `${routedPath(url.pathname)}/`;
  const short = new URL(env().shortUrl);
  const shortPrefix = `${short.pathname.replace(/\/+$/, "")}/`.toLowerCase();
  if (bareHost(url.hostname) === bareHost(short.hostname) && path.startsWith(shortPrefix)) return true;
  return path.startsWith("/s/") && ownHost(url.hostname);
}

/** A path as the router would read it: percent-decoded where possible, `//` folded, any case. */
function routedPath(pathname: string): string {
  let path = pathname;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    // Malformed escapes: compare the raw path.
  }
  return path.replace(/\/{2,}/g, "/").toLowerCase();
}

/**
 * The target as stored: trimmed, `http:` or `https:` only, at most LINK_URL_MAX_LENGTH
 * characters, no user-info part (`https://example.com@evil.example/` is the classic disguise
 * of where a link goes), and never one of this service's own short links on any host name it
 * answers (a link to a link could loop forever, or hide where a link goes). The proven link
 * domains are checked by `createLink` (a database read).
 */
export function checkTarget(input: string): string {
  const url = parseTarget(input);
  if (leadsToShortLink(url, isOwnHost)) throw loopRefusal();
  return url.href;
}

const loopRefusal = () => invalid("url must not be a short link of this service.");

function parseTarget(input: string): URL {
  const raw = input.trim();
  if (!raw) throw invalid("url must not be empty.");
  if (raw.length > LINK_URL_MAX_LENGTH) throw invalid(`url must be at most ${LINK_URL_MAX_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid("url must be an absolute http or https URL.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid("url must be an http or https URL.");
  if (url.username || url.password) throw invalid("url must not carry a user name or password (user@host).");
  if (url.href.length > LINK_URL_MAX_LENGTH) throw invalid(`url must be at most ${LINK_URL_MAX_LENGTH} characters.`);
  return url;
}

/** checkTarget, and the proven link domains (served by this instance too). */
async function checkTargetFully(input: string): Promise<string> {
  const href = checkTarget(input);
  const url = new URL(href);
  // Only a target with a short-link path costs the database read.
  if (routedPath(url.pathname).startsWith("/s/") && (await isLinkDomainHost(url.hostname))) throw loopRefusal();
  return href;
}

/** At redirect time: whether a stored target leads back here now (the configuration may have changed since). */
export async function leadsBack(target: string): Promise<boolean> {
  try {
    await checkTargetFully(target);
    return false;
  } catch {
    return true;
  }
}

export interface NewLink {
  url: string;
  code?: string;
  expiresAt?: Date | null;
  maxClicks?: number | null;
}

export async function createLink(userId: string, input: NewLink): Promise<LinkRecord> {
  const url = await checkTargetFully(input.url);
  if (input.code !== undefined && !LINK_CODE_PATTERN.test(input.code)) {
    throw invalid("code must be 3 to 32 letters, digits, '_' or '-'.");
  }
  const data = { userId, url, expiresAt: input.expiresAt ?? null, maxClicks: input.maxClicks ?? null };
  // A generated code that is taken (rare) is drawn again; a chosen one is the caller's to change.
  for (let attempt = 0; ; attempt++) {
    const code = input.code ?? newLinkCode();
    try {
      return await db().shortLink.create({ data: { ...data, code } });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (input.code !== undefined) throw invalid(`code '${input.code}' is taken.`);
      if (attempt >= 5) throw error;
    }
  }
}

/** GET /links: the caller's links, newest first, expired and used-up ones included (they show as such). */
export async function listLinks(userId: string, limit: number, after?: Position): Promise<Page<LinkRecord>> {
  return keysetPage(
    limit,
    (take) =>
      db().shortLink.findMany({
        where: { userId, ...afterPosition("createdAt", after) },
        orderBy: newestFirst("createdAt"),
        take,
      }),
    (l) => ({ t: l.createdAt.getTime(), id: l.id }),
  );
}

/** The caller's link; 404 when it is not theirs (the same as when it does not exist). */
export async function getLink(userId: string, code: string): Promise<LinkRecord> {
  const link = await db().shortLink.findFirst({ where: { code, userId } });
  if (!link) throw linkNotFound();
  return link;
}

/** Deletes the caller's link; 404 when it is not theirs (the same as when it does not exist). */
export async function deleteLink(userId: string, code: string): Promise<void> {
  const { count } = await db().shortLink.deleteMany({ where: { code, userId } });
  if (!count) throw linkNotFound();
}

export const isLinkLive = (link: Pick<LinkRecord, "expiresAt" | "maxClicks" | "clickCount">, now = Date.now()): boolean =>
  (link.expiresAt === null || link.expiresAt.getTime() > now) && (link.maxClicks === null || link.clickCount < link.maxClicks);

const clickKey = (linkId: string, ip: string) => `clicks:${linkId}:${ip}`;

/**
 * The loop guard of the redirect (issue 39 §4): a chain that comes back (through another
 * shortener, or a name in DNS that points here) brings the same client to the same code again
 * within seconds; past LOOP_VISITS in LOOP_WINDOW_SECONDS the redirect stops. A person clicking
 * a link a few times stays far below it; a browser following a loop reaches it at once.
 */
export const LOOP_VISITS = 5;
export const LOOP_WINDOW_SECONDS = 10;

/** Counts this visit; true when the same client came back to `code` too often to be a person. */
export async function comesBack(code: string, ip: string): Promise<boolean> {
  const visits = await counterStore().increment(`link-loop:${code}:${ip}`, LOOP_WINDOW_SECONDS);
  return visits > LOOP_VISITS;
}

/**
 * One visit of `/s/{code}`: the target to redirect to, or null (404) when the link does
 * not exist, has expired, is used up, or its owner is suspended. A limited link's click is
 * spent here atomically: of N concurrent visits to a link with one click left, exactly one
 * gets the target. Each counted click is also a visit of the day from the referring host
 * (`host`, "" for none; lib/links/visits.ts), so the visits add up to the clicks.
 */
export async function followLink(code: string, ip: string, now: Date = new Date(), host = ""): Promise<string | null> {
  const link = await db().shortLink.findUnique({ where: { code }, include: { user: { select: { suspended: true } } } });
  if (!link || link.user.suspended || !isLinkLive(link, now.getTime())) return null;
  if (link.maxClicks !== null) {
    const { count } = await db().shortLink.updateMany({
      where: {
        id: link.id,
        clickCount: { lt: db().shortLink.fields.maxClicks },
        OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
      },
      data: { clickCount: { increment: 1 } },
    });
    if (!count) return null;
    await recordVisit(link.id, host, now);
    return link.url;
  }
  const hits = await counterStore().increment(clickKey(link.id, ip), VIEW_DEDUP.windowSeconds);
  if (hits <= VIEW_DEDUP.max) {
    // A link deleted meanwhile: nothing to count, and the visit still goes where it pointed a moment ago.
    const { count } = await db().shortLink.updateMany({ where: { id: link.id }, data: { clickCount: { increment: 1 } } });
    if (count) await recordVisit(link.id, host, now);
  }
  return link.url;
}

/** Admin console: every user's links, newest first. */
export async function listAllLinks(limit: number, after?: Position): Promise<Page<LinkRecord & { username: string }>> {
  const page = await keysetPage(
    limit,
    (take) =>
      db().shortLink.findMany({
        where: afterPosition("createdAt", after),
        include: { user: { select: { displayUsername: true } } },
        orderBy: newestFirst("createdAt"),
        take,
      }),
    (l) => ({ t: l.createdAt.getTime(), id: l.id }),
  );
  return { ...page, items: page.items.map(({ user, ...l }) => ({ ...l, username: user.displayUsername })) };
}

/** Admin console: deletes any link. */
export async function removeLink(code: string): Promise<LinkRecord> {
  const link = await db().shortLink.findUnique({ where: { code } });
  if (!link) throw linkNotFound();
  await db().shortLink.deleteMany({ where: { id: link.id } });
  return link;
}
