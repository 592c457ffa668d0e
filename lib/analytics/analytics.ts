/**
 * GET /analytics: views, uploads and bytes of the caller's own posts per UTC day over a
 * range, and the posts with the most views in it (docs/analytics.md).
 *
 * Sources: views from PostViewDay (counted views per post per UTC day, written where views
 * are counted), uploads and bytes from UsageDay (the same rows as GET /usage-history, so
 * both agree). Both are per day, so every range is reported in whole UTC days, `24h`
 * included: it covers yesterday and today, the two days the last 24 hours fall into.
 * "Own posts" are personal ones (author is the caller, no team): team uploads count
 * against the team (UsageDay subject `t:<team>`), and so stay out of both figures alike.
 */
import type { Prisma } from "../db/client";
import { db } from "../db/client";
import { DAY_MS, userSubject, utcDay } from "../usage/window";

export const ANALYTICS_RANGES = ["24h", "7d", "30d", "90d", "365d"] as const;
export type AnalyticsRange = (typeof ANALYTICS_RANGES)[number];
export const DEFAULT_ANALYTICS_RANGE: AnalyticsRange = "30d";

/** UTC days in each range, today included. */
const RANGE_DAYS: Readonly<Record<AnalyticsRange, number>> = { "24h": 2, "7d": 7, "30d": 30, "90d": 90, "365d": 365 };

/** Posts listed in `topPosts`. */
export const TOP_POSTS = 10;


export interface AnalyticsFigures {
  views: number;
  uploads: number;
  bytes: number;
}

export interface AnalyticsDay extends AnalyticsFigures {
  /** UTC date `YYYY-MM-DD`. */
  day: string;
}

export interface TopPost {
  post: TopPostRecord;
  /** Counted views within the range (`post.viewCount` is the all-time figure). */
  views: number;
}

const topPostInclude = { user: true } as const satisfies Prisma.PostInclude;
export type TopPostRecord = Prisma.PostGetPayload<{ include: typeof topPostInclude }>;

export interface Analytics {
  range: AnalyticsRange;
  /** First and last UTC day of the range, inclusive. */
  from: string;
  to: string;
  /** Every day of the range, oldest first, zeros included (a chart needs no gap filling). */
  days: AnalyticsDay[];
  totals: AnalyticsFigures;
  /** At most TOP_POSTS posts with views in the range, most viewed first. */
  topPosts: TopPost[];
}

/** The caller's analytics over `range`, ending with the UTC day of `now`. */
export async function accountAnalytics(userId: string, range: AnalyticsRange, now: Date = new Date()): Promise<Analytics> {
  const days = dayList(now, RANGE_DAYS[range]);
  const from = days[0];
  const to = days[days.length - 1];
  const viewsWhere: Prisma.PostViewDayWhereInput = { day: { gte: from, lte: to }, post: { userId, teamId: null } };

  const [viewsByDay, usageDays, topRows] = await Promise.all([
    db().postViewDay.groupBy({ by: ["day"], where: viewsWhere, _sum: { views: true } }),
    db().usageDay.findMany({ where: { subject: userSubject(userId), day: { gte: from, lte: to } } }),
    db().postViewDay.groupBy({
      by: ["postId"],
      where: viewsWhere,
      _sum: { views: true },
      // postId breaks ties so that equal posts keep their order from one call to the next.
      orderBy: [{ _sum: { views: "desc" } }, { postId: "asc" }],
      take: TOP_POSTS,
    }),
  ]);

  const views = new Map(viewsByDay.map((r) => [r.day, r._sum.views ?? 0]));
  const usage = new Map(usageDays.map((r) => [r.day, { uploads: r.uploadCount, bytes: Number(r.bytes) }]));
  const series = days.map((day): AnalyticsDay => ({
    day,
    views: views.get(day) ?? 0,
    uploads: usage.get(day)?.uploads ?? 0,
    bytes: usage.get(day)?.bytes ?? 0,
  }));

  return {
    range,
    from,
    to,
    days: series,
    totals: {
      views: sum(series, (d) => d.views),
      uploads: sum(series, (d) => d.uploads),
      bytes: sum(series, (d) => d.bytes),
    },
    topPosts: await topPosts(topRows.map((r) => ({ postId: r.postId, views: r._sum.views ?? 0 }))),
  };
}

/** The records of the ranked posts, in rank order; posts without views in the range are left out. */
async function topPosts(ranked: { postId: string; views: number }[]): Promise<TopPost[]> {
  const viewed = ranked.filter((r) => r.views > 0);
  if (!viewed.length) return [];
  const rows = await db().post.findMany({ where: { id: { in: viewed.map((r) => r.postId) } }, include: topPostInclude });
  const byId = new Map(rows.map((p) => [p.id, p]));
  return viewed.flatMap((r) => {
    const post = byId.get(r.postId);
    // A post deleted between the two queries simply drops out.
    return post ? [{ post, views: r.views }] : [];
  });
}

/** `count` consecutive UTC days ending with the day of `now`, oldest first. */
function dayList(now: Date, count: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: count }, (_, i) => utcDay(new Date(today - (count - 1 - i) * DAY_MS)));
}

const sum = <T>(items: readonly T[], pick: (item: T) => number): number => items.reduce((n, item) => n + pick(item), 0);
