/**
 * GET /analytics (docs/analytics.md): figures per UTC day from seeded PostViewDay and
 * UsageDay rows for the day ranges, per UTC hour from PostViewHour and UsageHour for 24h
 * (and those rows written by real views and uploads, and pruned), the top posts, the
 * default range, the invalid-range 400 and the key rules.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ANALYTICS_RANGES, accountAnalytics, type AnalyticsRange } from "@/lib/analytics/analytics";
import { HOUR_MS, KEEP_HOURS, pruneHourly, resetPruneClock } from "@/lib/usage/hours";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { AnalyticsReply } from "@/lib/replies/reports";
import { countView } from "@/lib/posts/views";
import { recordUpload } from "@/lib/usage/reserve";
import { teamSubject, userSubject, utcDay, utcHour } from "@/lib/usage/window";
import { useCounterStore } from "../support/counters";
import { useTestDatabase } from "../support/db";
import { createTestPost, createTestTeam, createTestUser, type TestUser } from "../support/fixtures";
import { api, relay } from "../support/http";

useTestDatabase();
useCounterStore({ perTest: true });

const DAY = 86_400_000;
const daysAgo = (n: number) => utcDay(new Date(Date.now() - n * DAY));
const DAYS: Record<Exclude<AnalyticsRange, "24h">, number> = { "7d": 7, "30d": 30, "90d": 90, "365d": 365 };
const DAY_RANGES = ANALYTICS_RANGES.filter((r): r is Exclude<AnalyticsRange, "24h"> => r !== "24h");

/** Days (ago) that carry data: each range's first and last day, and just outside each. */
const SEEDED = [0, 1, 2, 6, 7, 29, 30, 89, 90, 364, 365];
/** Views of the main post on a day `n` days ago, uploads and bytes of the account that day. */
const viewsOn = (n: number) => 100 + n;
const uploadsOn = (n: number) => 1 + (n % 4);
const bytesOn = (n: number) => 1_000_000 * (n + 1);

let owner: TestUser;
let main: { id: string; code: string };
let second: { id: string; code: string };

beforeAll(async () => {
  owner = await createTestUser({ plan: "ultra" });
  const team = await createTestTeam(owner.id);
  const stranger = await createTestUser();
  main = await createTestPost(owner.id, { title: "Main" });
  second = await createTestPost(owner.id, { privacy: "private" });
  const teamPost = await createTestPost(owner.id, { teamId: team.id });
  const strangerPost = await createTestPost(stranger.id);
  await db().post.update({ where: { id: main.id }, data: { viewCount: 5000 } });

  const views = [];
  for (const n of SEEDED) {
    views.push({ postId: main.id, day: daysAgo(n), views: viewsOn(n) });
    // Other people's posts and team posts are not the caller's: they must never show.
    views.push({ postId: teamPost.id, day: daysAgo(n), views: 7777 }, { postId: strangerPost.id, day: daysAgo(n), views: 8888 });
    await db().usageDay.create({
      data: { subject: userSubject(owner.id), day: daysAgo(n), bytes: BigInt(bytesOn(n)), uploadCount: uploadsOn(n) },
    });
    await db().usageDay.create({ data: { subject: teamSubject(team.id), day: daysAgo(n), bytes: 999n, uploadCount: 9 } });
    await db().usageDay.create({ data: { subject: userSubject(stranger.id), day: daysAgo(n), bytes: 999n, uploadCount: 9 } });
  }
  // The second post: views only yesterday and 40 days ago.
  views.push({ postId: second.id, day: daysAgo(1), views: 3 }, { postId: second.id, day: daysAgo(40), views: 1000 });
  await db().postViewDay.createMany({ data: views });
});

/** What the seed gives over the last `days` UTC days. */
function expected(days: number) {
  const inRange = SEEDED.filter((n) => n < days);
  const secondViews = (days > 1 ? 3 : 0) + (days > 40 ? 1000 : 0);
  return {
    views: inRange.reduce((s, n) => s + viewsOn(n), 0) + secondViews,
    uploads: inRange.reduce((s, n) => s + uploadsOn(n), 0),
    bytes: inRange.reduce((s, n) => s + bytesOn(n), 0),
    mainViews: inRange.reduce((s, n) => s + viewsOn(n), 0),
    secondViews,
  };
}

describe("GET /analytics", () => {
  it.each(DAY_RANGES.map((r) => [r]))("range=%s: every UTC day of the range with its views, uploads and bytes", async (range) => {
    const days = DAYS[range];
    const reply = await api(`/analytics?range=${range}`, { key: owner.apiKey });
    expect(reply.status, reply.text).toBe(200);
    const body = AnalyticsReply.parse(reply.body);
    const want = expected(days);
    const dayOf = (entry: (typeof body.series)[number]) => ("day" in entry ? entry.day : undefined);

    expect(body).toMatchObject({ range, bucket: "day", from: daysAgo(days - 1), to: daysAgo(0) });
    expect(body.series.map(dayOf)).toEqual(Array.from({ length: days }, (_, i) => daysAgo(days - 1 - i)));
    for (const n of SEEDED) {
      const entry = body.series.find((d) => dayOf(d) === daysAgo(n));
      if (n >= days) {
        expect(entry).toBeUndefined();
        continue;
      }
      const extra = n === 1 ? 3 : 0; // the second post's views yesterday
      expect(entry).toEqual({ day: daysAgo(n), view_count: viewsOn(n) + extra, upload_count: uploadsOn(n), bytes: bytesOn(n) });
    }
    // Days without rows are present with zeros.
    expect(body.series.find((d) => dayOf(d) === daysAgo(3))).toEqual({ day: daysAgo(3), view_count: 0, upload_count: 0, bytes: 0 });
    expect(body.totals).toEqual({ view_count: want.views, upload_count: want.uploads, bytes: want.bytes });

    // Top posts: views within the range, most first, with the all-time view_count beside them.
    type TopEntry = { code: string; title: string | null; url: string; range_view_count: number; view_count: number };
    const top: TopEntry[] = [
      { code: main.code, title: "Main", url: `${env().shareUrl}/${main.code}`, range_view_count: want.mainViews, view_count: 5000 },
    ];
    const secondEntry = {
      code: second.code,
      title: null,
      url: `${env().shareUrl}/${second.code}`,
      range_view_count: want.secondViews,
      view_count: 0,
    };
    if (want.secondViews > want.mainViews) top.unshift(secondEntry);
    else top.push(secondEntry);
    expect(body.top_posts).toEqual(top);
  });

  it("range=24h: every UTC hour of the last 24, from the hourly rows", async () => {
    const user = await createTestUser();
    const team = await createTestTeam(user.id);
    const post = await createTestPost(user.id, { title: "Hourly" });
    const teamPost = await createTestPost(user.id, { teamId: team.id });
    const now = new Date();
    const hoursAgo = (n: number) => utcHour(new Date(now.getTime() - n * HOUR_MS));
    // Hours 0 and 23 are the range's last and first; 24 and 30 are just outside it.
    for (const n of [0, 1, 23, 24, 30]) {
      await db().postViewHour.createMany({
        data: [
          { postId: post.id, hour: hoursAgo(n), views: 10 + n },
          { postId: teamPost.id, hour: hoursAgo(n), views: 7777 },
        ],
      });
      await db().usageHour.create({
        data: { subject: userSubject(user.id), hour: hoursAgo(n), bytes: BigInt(1000 * (n + 1)), uploadCount: 1 },
      });
      await db().usageHour.create({ data: { subject: teamSubject(team.id), hour: hoursAgo(n), bytes: 999n, uploadCount: 9 } });
    }
    // The day rows are not what 24h reads.
    await db().postViewDay.create({ data: { postId: post.id, day: utcDay(now), views: 5555 } });

    const a = await accountAnalytics(user.id, "24h", now);
    expect(a).toMatchObject({ range: "24h", bucket: "hour", from: hoursAgo(23), to: hoursAgo(0) });
    expect(a.points.map((p) => p.key)).toEqual(Array.from({ length: 24 }, (_, i) => hoursAgo(23 - i)));
    for (const n of [0, 1, 23]) expect(a.points[23 - n]).toEqual({ key: hoursAgo(n), views: 10 + n, uploads: 1, bytes: 1000 * (n + 1) });
    expect(a.points[23 - 5]).toEqual({ key: hoursAgo(5), views: 0, uploads: 0, bytes: 0 });
    expect(a.totals).toEqual({ views: 10 + 11 + 33, uploads: 3, bytes: 1000 + 2000 + 24000 });
    expect(a.topPosts.map((t) => [t.post.code, t.views])).toEqual([[post.code, 54]]);

    // Over HTTP: hour buckets as ISO 8601 starts, the spec's count names.
    const reply = await api("/analytics?range=24h", { key: user.apiKey });
    expect(reply.status, reply.text).toBe(200);
    const body = AnalyticsReply.parse(reply.body);
    expect(body.bucket).toBe("hour");
    expect(body.series).toHaveLength(24);
    const starts = body.series.map((e) => ("hour" in e ? Date.parse(e.hour) : NaN));
    starts.forEach((t, i) => expect(t - starts[0]).toBe(i * HOUR_MS));
    expect(body.from).toBe((body.series[0] as { hour: string }).hour);
    expect(body.from).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00Z$/);
    expect(body.top_posts[0]).toMatchObject({ code: post.code, range_view_count: 54 });
  });

  it("a counted view and a stored upload land in the current hour; hourly rows older than two days are pruned", async () => {
    const user = await createTestUser();
    const post = await createTestPost(user.id, { privacy: "public" });
    expect(await countView({ ...post, privacy: "public", moderated: false, draft: false, teamId: null }, "198.51.100.77")).toBe(true);
    await db().$transaction((tx) => recordUpload(tx, userSubject(user.id), 4096, 2));
    const a = await accountAnalytics(user.id, "24h");
    expect(a.totals).toEqual({ views: 1, uploads: 2, bytes: 4096 });

    const now = new Date();
    const old = utcHour(new Date(now.getTime() - (KEEP_HOURS + 1) * HOUR_MS));
    const kept = utcHour(new Date(now.getTime() - (KEEP_HOURS - 1) * HOUR_MS));
    await db().postViewHour.createMany({
      data: [
        { postId: post.id, hour: old, views: 1 },
        { postId: post.id, hour: kept, views: 1 },
      ],
    });
    await db().usageHour.createMany({
      data: [
        { subject: userSubject(user.id), hour: old },
        { subject: userSubject(user.id), hour: kept },
      ],
    });
    resetPruneClock();
    await pruneHourly(now);
    expect((await db().postViewHour.findMany({ where: { postId: post.id } })).map((r) => r.hour)).not.toContain(old);
    expect((await db().postViewHour.findMany({ where: { postId: post.id } })).map((r) => r.hour)).toContain(kept);
    expect((await db().usageHour.findMany({ where: { subject: userSubject(user.id) } })).map((r) => r.hour).sort()).toEqual(
      [kept, utcHour(now)].sort(),
    );
  });

  it("defaults to 30d and answers the same on Relay", async () => {
    const plain = await api("/analytics", { key: owner.apiKey });
    expect(plain.status, plain.text).toBe(200);
    expect(plain.body.range).toBe("30d");
    expect(plain.body.series).toHaveLength(30);
    const viaRelay = await relay("/analytics?range=30d", { key: owner.relayKey });
    expect(viaRelay.body).toEqual(plain.body);
  });

  it("400 invalid_request for an invalid range", async () => {
    for (const range of ["1d", "30D", "", "7d,30d", "24"]) {
      const reply = await api(`/analytics?range=${encodeURIComponent(range)}`, { key: owner.apiKey });
      expect(reply.status, range).toBe(400);
      expect(reply.body.error.type).toBe("invalid_request");
    }
  });

  it("a new account gets zeros and no top posts", async () => {
    const fresh = await createTestUser();
    const reply = await api("/analytics?range=7d", { key: fresh.apiKey });
    expect(reply.body.totals).toEqual({ view_count: 0, upload_count: 0, bytes: 0 });
    expect(reply.body.series).toHaveLength(7);
    expect(reply.body.top_posts).toEqual([]);
  });

  it("lists at most 10 top posts, most viewed first, leaving out posts without views in the range", async () => {
    const user = await createTestUser();
    const posts = [];
    for (let i = 0; i < 12; i++) posts.push(await createTestPost(user.id));
    const quiet = await createTestPost(user.id);
    await db().postViewDay.createMany({
      data: [
        ...posts.map((p, i) => ({ postId: p.id, day: daysAgo(i % 3), views: 10 + i })),
        { postId: quiet.id, day: daysAgo(0), views: 0 },
        { postId: quiet.id, day: daysAgo(100), views: 500 },
      ],
    });
    const result = await accountAnalytics(user.id, "7d");
    expect(result.topPosts.map((t) => [t.post.code, t.views])).toEqual(
      posts
        .map((p, i) => [p.code, 10 + i])
        .reverse()
        .slice(0, 10),
    );
  });

  it("team keys get 401 and suspended accounts 403; limited to 30 a minute", async () => {
    const team = await createTestTeam(owner.id);
    const teamReply = await api("/analytics", { key: team.key });
    expect(teamReply.status).toBe(401);
    expect(teamReply.body.error.type).toBe("unauthorized");
    const suspended = await createTestUser({ suspended: true });
    expect((await api("/analytics", { key: suspended.apiKey })).body.error.type).toBe("suspended");
    const reply = await api("/analytics?range=24h", { key: owner.apiKey });
    expect(reply.headers.get("x-ratelimit-limit")).toBe("30");
  });
});
