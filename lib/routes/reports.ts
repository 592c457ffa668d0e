/**
 * Handlers of the reports area (lib/routes/table/reports.ts): reports of a post or a user,
 * and GET /analytics. The dispatcher has already checked the key (personal only),
 * suspension, the rate limit and the zod inputs.
 */
import { z } from "zod";
import { ANALYTICS_RANGES, DEFAULT_ANALYTICS_RANGE, accountAnalytics } from "@/lib/analytics/analytics";
import type { RouteContext } from "@/lib/http/route";
import { refuseIfPasswordLocked } from "@/lib/posts/share-password";
import { analyticsView } from "@/lib/replies/reports";
import { reportPost, reportUser } from "@/lib/reports/submit";
import type { codeParam, idParam, reportBody } from "./params";

export const analyticsQuery = z.object({
  range: z.enum(ANALYTICS_RANGES, { error: `range must be one of ${ANALYTICS_RANGES.join(", ")}.` }).default(DEFAULT_ANALYTICS_RANGE),
});

/** `{reported: true}`, also when the same reporter had already reported the post (docs/reports.md). */
export async function handleReportPost({
  principal,
  params,
  body,
  ip,
}: RouteContext<{ params: typeof codeParam; body: typeof reportBody }>) {
  const reporterId = principal.user.id;
  // Not through the API or Relay for a password-protected post (docs/share-passwords.md);
  // a visitor who opened it on the web reports it there.
  await refuseIfPasswordLocked(params.code, { userId: reporterId, teamId: null });
  await reportPost(params.code, { reporterId, reason: body.reason, ip });
  return { reported: true as const };
}

export async function handleReportUser({ principal, params, body, ip }: RouteContext<{ params: typeof idParam; body: typeof reportBody }>) {
  await reportUser(params.id, { reporterId: principal.user.id, reason: body.reason, ip });
  return { reported: true as const };
}

export async function handleAnalytics({ principal, query }: RouteContext<{ query: typeof analyticsQuery }>) {
  return analyticsView(await accountAnalytics(principal.user.id, query.range));
}
