/**
 * Short links (docs/short-links.md). A click limit is spent by one conditional UPDATE, so
 * concurrent clicks never pass it; unlimited links count at most 3 clicks per IP per hour.
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

export const shortUrlOf = (code: string): string => `${env().shortUrl}/${code}`;

/** Whether a target leads to a short link of this instance: `/s/` on any name it answers, or SHORT_URL's path. */
function leadsToShortLink(url: URL, ownHost: (hostname: string) => boolean): boolean {
  const path = `${routedPath(url.pathname)}/`;
  const short = new URL(env().shortUrl);
  const shortPrefix = `${short.pathname.replace(/\/+$/, "")}/`.toLowerCase();
  if (bareHost(url.hostname) === bareHost(short.hostname) && path.startsWith(shortPrefix)) return true;
  return path.startsWith("/s/") && ownHost(url.hostname);
}

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
 * The target as stored: http(s), no user-info (`https://example.com@evil.example/`, the classic
 * disguise), never one of our own short links on any host (a loop, or a hidden target).
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

async function checkTargetFully(input: string): Promise<string> {
  const href = checkTarget(input);
  const url = new URL(href);
  // Only a target with a short-link path costs the database read.
  if (routedPath(url.pathname).startsWith("/s/") && (await isLinkDomainHost(url.hostname))) throw loopRefusal();
  return href;
}

/** At redirect time: the configuration may have changed since the link was stored. */
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

/** 404 when not theirs (the same as missing). */
export async function getLink(userId: string, code: string): Promise<LinkRecord> {
  const link = await db().shortLink.findFirst({ where: { code, userId } });
  if (!link) throw linkNotFound();
  return link;
}

/** 404 when not theirs (the same as missing). */
export async function deleteLink(userId: string, code: string): Promise<void> {
  const { count } = await db().shortLink.deleteMany({ where: { code, userId } });
  if (!count) throw linkNotFound();
}

export const isLinkLive = (link: Pick<LinkRecord, "expiresAt" | "maxClicks" | "clickCount">, now = Date.now()): boolean =>
  (link.expiresAt === null || link.expiresAt.getTime() > now) && (link.maxClicks === null || link.clickCount < link.maxClicks);

const clickKey = (linkId: string, ip: string) => `clicks:${linkId}:${ip}`;

/**
 * The redirect's loop guard (issue 39 §4): a chain coming back brings the same client to the same
 * code within seconds; past LOOP_VISITS in LOOP_WINDOW_SECONDS it stops. A person stays far below.
 */
export const LOOP_VISITS = 5;
export const LOOP_WINDOW_SECONDS = 10;

export async function comesBack(code: string, ip: string): Promise<boolean> {
  const visits = await counterStore().increment(`link-loop:${code}:${ip}`, LOOP_WINDOW_SECONDS);
  return visits > LOOP_VISITS;
}

/** One visit of `/s/{code}`: null (404) when gone. Of N concurrent visits to a link with one click left, exactly one gets the target. */
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

export async function removeLink(code: string): Promise<LinkRecord> {
  const link = await db().shortLink.findUnique({ where: { code } });
  if (!link) throw linkNotFound();
  await db().shortLink.deleteMany({ where: { id: link.id } });
  return link;
}
