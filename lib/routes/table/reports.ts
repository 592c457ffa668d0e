/** Reports and analytics (API and Relay). */
import { defineRoute } from "@/lib/http/route";
import { AnalyticsReply } from "@/lib/replies/reports";
import { Reported } from "@/lib/presenters/shared";
import { codeParam, idParam, reportBody } from "@/lib/routes/params";
import { analyticsQuery, handleAnalytics, handleReportPost, handleReportUser } from "@/lib/routes/reports";
import { BOTH } from "./shared";

const reportPost = defineRoute({
  id: "reportPost",
  method: "POST",
  path: "/posts/{code}/report",
  surfaces: BOTH,
  summary: "Report a post",
  rateLimit: "reports",
  params: codeParam,
  body: reportBody,
  response: Reported,
  handler: handleReportPost,
});

const reportUser = defineRoute({
  id: "reportUser",
  method: "POST",
  path: "/users/{id}/report",
  surfaces: BOTH,
  summary: "Report a user",
  rateLimit: "reports",
  params: idParam,
  body: reportBody,
  response: Reported,
  handler: handleReportUser,
});

const analytics = defineRoute({
  id: "analytics",
  method: "GET",
  path: "/analytics",
  surfaces: BOTH,
  summary: "Views and uploads of the caller's posts over a range",
  rateLimit: "analytics",
  query: analyticsQuery,
  response: AnalyticsReply,
  handler: handleAnalytics,
});

export const reportRoutes = [reportPost, reportUser, analytics];
