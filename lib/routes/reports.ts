/**
 * Handlers of the report endpoints (post, user, Relay comment) and GET /analytics: pick
 * the domain verb (lib/reports, lib/analytics) and shape its answer. The dispatcher has
 * already checked the key (personal only), suspension, the rate limit and the zod inputs.
 */
import { refuseIfPasswordLocked } from "../posts/share-password";
import { z } from "zod";
import { ANALYTICS_RANGES, accountAnalytics, type Analytics, type AnalyticsFigures } from "../analytics/analytics";
import { hourStart } from "../usage/hours";
import type { PersonalPrincipal } from "../types/principal";
import { reportComment, reportPost, reportUser, type ReportInput } from "../reports/submit";
import type { analyticsQuery, reportBody } from "./params";
import { shareUrl } from "../presenters/post-views";

export type ReportTarget = { kind: "post"; code: string } | { kind: "user"; id: string } | { kind: "comment"; id: string };

/** `{reported: true}`, also when the same reporter had already reported the target (docs/reports.md). */
export async function report(
  principal: PersonalPrincipal,
  target: ReportTarget,
  body: z.output<typeof reportBody>,
  ip: string,
): Promise<{ reported: true }> {
  const input: ReportInput = { reporterId: principal.user.id, reason: body.reason, ip };
  if (target.kind === "post") {
    // Not through the API or Relay for a password-protected post (docs/share-passwords.md);
    // a visitor who opened it on the web reports it there.
    await refuseIfPasswordLocked(target.code, { userId: input.reporterId, teamId: null });
    await reportPost(target.code, input);
  } else if (target.kind === "user") await reportUser(target.id, input);
  else await reportComment(target.id, input);
  return { reported: true };
}

const count = z.number().int().nonnegative();
// The spec's names for counts (docs/analytics.md, "Choices": `views`, `uploads` → `view_count`, `upload_count`).
const figures = { view_count: count, upload_count: count, bytes: count };

/** The 200 body of GET /analytics (docs/analytics.md). */
export const AnalyticsReply = z.object({
  range: z.enum(ANALYTICS_RANGES),
  bucket: z.enum(["hour", "day"]).describe("Size of one `series` entry: `hour` for 24h, `day` for the other ranges"),
  from: z.string().describe("First bucket of the range: a UTC day YYYY-MM-DD, or the start of a UTC hour (ISO 8601) for 24h"),
  to: z.string().describe("Last bucket of the range (the current day or hour), in the same form"),
  totals: z.object(figures),
  series: z
    .array(
      z.union([
        z.object({ day: z.string().describe("UTC day, YYYY-MM-DD"), ...figures }),
        z.object({ hour: z.string().describe("Start of the UTC hour, ISO 8601"), ...figures }),
      ]),
    )
    .describe("Every bucket of the range, oldest first"),
  top_posts: z
    .array(
      z.object({
        code: z.string(),
        title: z.string().nullable(),
        url: z.string().describe("Share page of the post"),
        range_view_count: count.describe("Counted views within the range"),
        view_count: count.describe("Counted views of all time, as in the post object"),
      }),
    )
    .describe("Up to 10 posts with views in the range, most viewed first"),
});

export async function analytics(
  principal: PersonalPrincipal,
  query: z.output<typeof analyticsQuery>,
): Promise<z.infer<typeof AnalyticsReply>> {
  return analyticsView(await accountAnalytics(principal.user.id, query.range));
}

function analyticsView(a: Analytics): z.infer<typeof AnalyticsReply> {
  const hourly = a.bucket === "hour";
  const bucketName = (key: string) => (hourly ? hourStart(key) : key);
  const counts = (f: AnalyticsFigures) => ({ view_count: f.views, upload_count: f.uploads, bytes: f.bytes });
  return {
    range: a.range,
    bucket: a.bucket,
    from: bucketName(a.from),
    to: bucketName(a.to),
    totals: counts(a.totals),
    series: a.points.map((p) => (hourly ? { hour: hourStart(p.key), ...counts(p) } : { day: p.key, ...counts(p) })),
    top_posts: a.topPosts.map(({ post, views }) => ({
      code: post.code,
      title: post.title,
      url: shareUrl(post),
      range_view_count: views,
      view_count: post.viewCount,
    })),
  };
}
