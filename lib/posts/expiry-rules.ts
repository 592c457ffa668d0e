/** The rules of expiry and view limits (docs/expiry.md), without I/O. */
import { env } from "@/lib/config/env";
import type { Prisma } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";

export interface ExpiringPost {
  expiresAt: Date | null;
  maxViews: number | null;
  viewCount: number;
}

export interface ExpirySettings {
  expiresAt?: Date | null;
  maxViews?: number | null;
}

/** A view limit at most this large (a 32-bit column on both databases). */
export const MAX_VIEWS_LIMIT = 1_000_000_000;
/** Expiry at most ten years ahead: a typo such as `99999d` is refused rather than stored. */
export const MAX_EXPIRY_MS = 10 * 365 * 86_400_000;

/** How long the files of a post whose last view was just served stay reachable. */
export function lastViewGraceMs(): number {
  return (env().VIEW_LIMIT_GRACE_SECONDS ?? 600) * 1000;
}

export const isExpired = (post: Pick<ExpiringPost, "expiresAt">, now: number = Date.now()): boolean =>
  post.expiresAt !== null && post.expiresAt.getTime() <= now;

export const viewsUsedUp = (post: ExpiringPost): boolean => post.maxViews !== null && post.viewCount >= post.maxViews;

/** Handed out one viewer at a time (a view limit or a password): its URLs are signed, so an unsigned link spends no view. */
export const isGated = (post: { maxViews: number | null; passwordHash: string | null }): boolean =>
  post.maxViews !== null || post.passwordHash !== null;

export const notExpiredWhere = (now: Date = new Date()): Prisma.PostWhereInput => ({
  OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
});

const DURATION = /^(\d{1,9})\s*(s|m|h|d|w)$/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
/** ISO 8601 with a date and time and an explicit zone (`Z` or `+hh:mm`); no local times. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** An ISO 8601 instant with a zone, or a duration (`30s`...`2w`); future, at most ten years ahead. */
export function parseExpiry(raw: string, field: string, now: number = Date.now()): Date {
  const v = raw.trim();
  const duration = DURATION.exec(v.toLowerCase());
  let at: number;
  if (duration) at = now + Number(duration[1]) * UNIT_MS[duration[2]];
  else if (ISO_INSTANT.test(v)) at = Date.parse(v);
  else throw invalid(`${field} must be an ISO 8601 time with a zone (2030-01-31T12:00:00Z) or a duration such as 30m, 1h or 7d.`);
  if (!Number.isFinite(at)) throw invalid(`${field} is not a valid time.`);
  if (at <= now) throw invalid(`${field} must be in the future.`);
  if (at - now > MAX_EXPIRY_MS) throw invalid(`${field} must be at most ten years ahead.`);
  return new Date(at);
}

export function parseMaxViews(raw: string, field: string): number {
  const v = raw.trim();
  const n = /^\d{1,10}$/.test(v) ? Number(v) : NaN;
  if (!(n >= 1 && n <= MAX_VIEWS_LIMIT)) throw invalid(`${field} must be an integer from 1 to ${MAX_VIEWS_LIMIT}.`);
  return n;
}

const invalid = (message: string) => new DomainError("invalid_request", message);
