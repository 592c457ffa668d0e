/**
 * Handlers of the report endpoints (post, user, Relay comment) and GET /analytics: pick
 * the domain verb (lib/reports, lib/analytics) and shape its answer. The dispatcher has
 * already checked the key (personal only), suspension, the rate limit and the zod inputs.
 */
import { z } from "zod";
import { ANALYTICS_RANGES, accountAnalytics, type Analytics } from "../analytics/analytics";
import type { Principal } from "../auth/principal";
import { DomainError } from "../errors";
import { reportComment, reportPost, reportUser, type ReportInput } from "../reports/submit";
import type { analyticsQuery, reportBody } from "./params";
import { shareUrl } from "./post-views";

export type ReportTarget = { kind: "post"; code: string } | { kind: "user"; id: string } | { kind: "comment"; id: string };

/** `{reported: true}`, also when the same reporter had already reported the target (docs/reports.md). */
export async function report(principal: Principal, target: ReportTarget, body: z.output<typeof reportBody>, ip: string): Promise<{ reported: true }> {
  const input: ReportInput = { reporterId: personalUserId(principal), reason: body.reason, ip };
  if (target.kind === "post") await reportPost(target.code, input);
  else if (target.kind === "user") await reportUser(target.id, input);
  else await reportComment(target.id, input);
  return { reported: true };
}

const count = z.number().int().nonnegative();
const figures = { views: count, uploads: count, bytes: count };

/** The 200 body of GET /analytics (docs/analytics.md). */
export const AnalyticsReply = z.object({
  range: z.enum(ANALYTICS_RANGES),
  /** Size of one `series` entry; always `day` (the view and usage tables are per UTC day). */
  bucket: z.literal("day"),
  from: z.string().describe("First UTC day of the range, YYYY-MM-DD"),
  to: z.string().describe("Last UTC day of the range (today), YYYY-MM-DD"),
  totals: z.object(figures),
  series: z.array(z.object({ day: z.string().describe("UTC day, YYYY-MM-DD"), ...figures })).describe("Every day of the range, oldest first"),
  top_posts: z
    .array(
      z.object({
        code: z.string(),
        title: z.string().nullable(),
        url: z.string().describe("Share page of the post"),
        views: count.describe("Counted views within the range"),
        view_count: count.describe("Counted views of all time, as in the post object"),
      }),
    )
    .describe("Up to 10 posts with views in the range, most viewed first"),
});

export async function analytics(principal: Principal, query: z.output<typeof analyticsQuery>): Promise<z.infer<typeof AnalyticsReply>> {
  return analyticsView(await accountAnalytics(personalUserId(principal), query.range));
}

function analyticsView(a: Analytics): z.infer<typeof AnalyticsReply> {
  return {
    range: a.range,
    bucket: "day",
    from: a.from,
    to: a.to,
    totals: a.totals,
    series: a.days.map((d) => ({ day: d.day, views: d.views, uploads: d.uploads, bytes: d.bytes })),
    top_posts: a.topPosts.map(({ post, views }) => ({
      code: post.code,
      title: post.title,
      url: shareUrl(post),
      views,
      view_count: post.viewCount,
    })),
  };
}

/** Reports and analytics belong to a person; the route table admits personal keys only. */
function personalUserId(principal: Principal): string {
  if (principal.kind === "team") throw new DomainError("unauthorized", "Team keys cannot be used on this endpoint.");
  return principal.user.id;
}
