/** The reply of GET /analytics (docs/analytics.md) and the view that builds it from lib/analytics. */
import { z } from "zod";
import { ANALYTICS_RANGES, type Analytics, type AnalyticsFigures } from "@/lib/analytics/analytics";
import { hourStart } from "@/lib/usage/hours";
import { shareUrl } from "@/lib/presenters/posts";

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

export function analyticsView(a: Analytics): z.infer<typeof AnalyticsReply> {
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
