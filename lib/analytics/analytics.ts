/**
 * GET /analytics (docs/analytics.md). Uploads come from the same UsageDay rows as GET
 * /usage-history, so both agree; team uploads count against the team and stay out of both.
 */
import type { Prisma } from "@/lib/db/client";
import { db } from "@/lib/db/client";
import { DAY_MS, userSubject, utcDay, utcHour } from "@/lib/usage/window";
import { HOUR_MS, pruneHourly } from "@/lib/usage/hours";

export const ANALYTICS_RANGES = ["24h", "7d", "30d", "90d", "365d"] as const;
export type AnalyticsRange = (typeof ANALYTICS_RANGES)[number];
export const DEFAULT_ANALYTICS_RANGE: AnalyticsRange = "30d";

export type AnalyticsBucket = "hour" | "day";

/** Bucket size and count of each range, the current hour or day included. */
const RANGES: Readonly<Record<AnalyticsRange, { bucket: AnalyticsBucket; count: number }>> = {
  "24h": { bucket: "hour", count: 24 },
  "7d": { bucket: "day", count: 7 },
  "30d": { bucket: "day", count: 30 },
  "90d": { bucket: "day", count: 90 },
  "365d": { bucket: "day", count: 365 },
};

export const TOP_POSTS = 10;

export interface AnalyticsFigures {
  views: number;
  uploads: number;
  bytes: number;
}

export interface AnalyticsPoint extends AnalyticsFigures {
  /** The bucket: a UTC date `YYYY-MM-DD`, or a UTC hour `YYYY-MM-DDTHH`. */
  key: string;
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
  bucket: AnalyticsBucket;
  from: string;
  to: string;
  /** Zeros included: a chart needs no gap filling. */
  points: AnalyticsPoint[];
  totals: AnalyticsFigures;
  topPosts: TopPost[];
}

/** What one bucket size reads: views per bucket, usage per bucket, views per post (ranked). */
interface Counts {
  views: Map<string, number>;
  usage: Map<string, { uploads: number; bytes: number }>;
  ranked: { postId: string; views: number }[];
}

export async function accountAnalytics(userId: string, range: AnalyticsRange, now: Date = new Date()): Promise<Analytics> {
  const { bucket, count } = RANGES[range];
  const read = BUCKET_READS[bucket];
  const keys = read.list(now, count);
  const from = keys[0];
  const to = keys[keys.length - 1];
  const counts = await read.counts(userId, from, to);
  if (bucket === "hour") void pruneHourly(now);

  const points = keys.map(
    (key): AnalyticsPoint => ({
      key,
      views: counts.views.get(key) ?? 0,
      uploads: counts.usage.get(key)?.uploads ?? 0,
      bytes: counts.usage.get(key)?.bytes ?? 0,
    }),
  );
  return {
    range,
    bucket,
    from,
    to,
    points,
    totals: {
      views: sum(points, (p) => p.views),
      uploads: sum(points, (p) => p.uploads),
      bytes: sum(points, (p) => p.bytes),
    },
    topPosts: await topPosts(counts.ranked),
  };
}

interface BucketRead {
  list: (now: Date, count: number) => string[];
  counts: (userId: string, from: string, to: string) => Promise<Counts>;
}
const BUCKET_READS: Readonly<Record<AnalyticsBucket, BucketRead>> = {
  hour: { list: hourList, counts: hourCounts },
  day: { list: dayList, counts: dayCounts },
};

/** Views of the caller's personal posts: the author is the caller and no team owns them. */
const ownPosts = (userId: string) => ({ userId, teamId: null });

async function dayCounts(userId: string, from: string, to: string): Promise<Counts> {
  const where: Prisma.PostViewDayWhereInput = { day: { gte: from, lte: to }, post: ownPosts(userId) };
  const [byDay, usage, ranked] = await Promise.all([
    db().postViewDay.groupBy({ by: ["day"], where, _sum: { views: true } }),
    db().usageDay.findMany({ where: { subject: userSubject(userId), day: { gte: from, lte: to } } }),
    // postId breaks ties so that equal posts keep their order from one call to the next.
    db().postViewDay.groupBy({
      by: ["postId"],
      where,
      _sum: { views: true },
      orderBy: [{ _sum: { views: "desc" } }, { postId: "asc" }],
      take: TOP_POSTS,
    }),
  ]);
  return {
    views: new Map(byDay.map((r) => [r.day, r._sum.views ?? 0])),
    usage: new Map(usage.map((r) => [r.day, { uploads: r.uploadCount, bytes: Number(r.bytes) }])),
    ranked: ranked.map((r) => ({ postId: r.postId, views: r._sum.views ?? 0 })),
  };
}

async function hourCounts(userId: string, from: string, to: string): Promise<Counts> {
  const where: Prisma.PostViewHourWhereInput = { hour: { gte: from, lte: to }, post: ownPosts(userId) };
  const [byHour, usage, ranked] = await Promise.all([
    db().postViewHour.groupBy({ by: ["hour"], where, _sum: { views: true } }),
    db().usageHour.findMany({ where: { subject: userSubject(userId), hour: { gte: from, lte: to } } }),
    db().postViewHour.groupBy({
      by: ["postId"],
      where,
      _sum: { views: true },
      orderBy: [{ _sum: { views: "desc" } }, { postId: "asc" }],
      take: TOP_POSTS,
    }),
  ]);
  return {
    views: new Map(byHour.map((r) => [r.hour, r._sum.views ?? 0])),
    usage: new Map(usage.map((r) => [r.hour, { uploads: r.uploadCount, bytes: Number(r.bytes) }])),
    ranked: ranked.map((r) => ({ postId: r.postId, views: r._sum.views ?? 0 })),
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

function dayList(now: Date, count: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: count }, (_, i) => utcDay(new Date(today - (count - 1 - i) * DAY_MS)));
}

function hourList(now: Date, count: number): string[] {
  const thisHour = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  return Array.from({ length: count }, (_, i) => utcHour(new Date(thisHour - (count - 1 - i) * HOUR_MS)));
}

const sum = <T>(items: readonly T[], pick: (item: T) => number): number => items.reduce((n, item) => n + pick(item), 0);
