/**
 * Short-link visits per UTC day and referring host (docs/qr-and-visits.md), recorded exactly when
 * a click counts. Only the host is kept (a path can name a person): no personal data to keep.
 */
import { sqltag as sql } from "@prisma/client/runtime/client";
import { db } from "@/lib/db/client";
import { DAY_MS, utcDay } from "@/lib/usage/window";
import { DomainError } from "@/lib/errors";

export const VISIT_RANGES = ["7d", "30d", "90d", "365d"] as const;
export type VisitRange = (typeof VISIT_RANGES)[number];
export const DEFAULT_VISIT_RANGE: VisitRange = "30d";
const RANGE_DAYS: Readonly<Record<VisitRange, number>> = { "7d": 7, "30d": 30, "90d": 90, "365d": 365 };
/** Referring hosts listed, most visits first: a chart, not an export. */
export const TOP_REFERRERS = 20;
const HOST_MAX_LENGTH = 253;

/** The `Referer`'s host, or "" (an app, a typed address, a scanned QR code). */
export function referringHost(referer: string | null): string {
  if (!referer) return "";
  try {
    const url = new URL(referer);
    if (url.protocol !== "http:" && url.protocol !== "https:") return "";
    const host = url.hostname.toLowerCase();
    return host.length <= HOST_MAX_LENGTH ? host : "";
  } catch {
    return "";
  }
}

/** One upsert; a link deleted meanwhile gets no row, and no error. */
export async function recordVisit(linkId: string, host: string, now: Date = new Date()): Promise<void> {
  try {
    await db().$executeRaw(
      sql`INSERT INTO "LinkVisitDay" ("linkId", "day", "host", "visits")
          SELECT "id", ${utcDay(now)}, ${host}, 1 FROM "ShortLink" WHERE "id" = ${linkId}
          ON CONFLICT ("linkId", "day", "host") DO UPDATE SET "visits" = "LinkVisitDay"."visits" + 1`,
    );
  } catch (error) {
    if (await db().shortLink.count({ where: { id: linkId } })) throw error;
  }
}

export interface LinkVisits {
  code: string;
  range: VisitRange;
  from: string;
  to: string;
  total: number;
  days: { day: string; visits: number }[];
  /** Up to TOP_REFERRERS hosts, most visits first (ties by name); "" is "no referrer". */
  hosts: { host: string; visits: number }[];
}

/** 404 when the link is not theirs (the same as missing). */
export async function linkVisits(userId: string, code: string, range: VisitRange, now: Date = new Date()): Promise<LinkVisits> {
  const link = await db().shortLink.findFirst({ where: { code, userId }, select: { id: true } });
  if (!link) throw new DomainError("not_found", "No such link.");
  const count = RANGE_DAYS[range];
  const dayList = Array.from({ length: count }, (_, i) => utcDay(new Date(now.getTime() - (count - 1 - i) * DAY_MS)));
  const from = dayList[0];
  const to = dayList[dayList.length - 1];
  const where = { linkId: link.id, day: { gte: from, lte: to } };
  const [perDay, perHost] = await Promise.all([
    db().linkVisitDay.groupBy({ by: ["day"], where, _sum: { visits: true } }),
    db().linkVisitDay.groupBy({ by: ["host"], where, _sum: { visits: true } }),
  ]);
  const byDay = new Map(perDay.map((r) => [r.day, r._sum.visits ?? 0]));
  const days = dayList.map((day) => ({ day, visits: byDay.get(day) ?? 0 }));
  const hosts = perHost
    .map((r) => ({ host: r.host, visits: r._sum.visits ?? 0 }))
    .sort((a, b) => b.visits - a.visits || (a.host < b.host ? -1 : a.host > b.host ? 1 : 0))
    .slice(0, TOP_REFERRERS);
  return { code, range, from, to, total: days.reduce((sum, d) => sum + d.visits, 0), days, hosts };
}
