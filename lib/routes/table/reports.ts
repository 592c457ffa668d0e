/** Reports and analytics (API and Relay). */
import { defineRoute } from "../../http/route";
import { analyticsQuery, codeParam, idParam, reportBody } from "../params";
import * as reports from "../reports";
import { BOTH, reported } from "./shared";

const reportPost = defineRoute({
  id: "reportPost",
  method: "POST",
  path: "/posts/{code}/report",
  surfaces: BOTH,
  summary: "Report a post",
  rateLimit: "reports",
  params: codeParam,
  body: reportBody,
  response: reported,
  handler: ({ principal, params, body, ip }) => reports.report(principal, { kind: "post", code: params.code }, body, ip),
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
  response: reported,
  handler: ({ principal, params, body, ip }) => reports.report(principal, { kind: "user", id: params.id }, body, ip),
});

const analytics = defineRoute({
  id: "analytics",
  method: "GET",
  path: "/analytics",
  surfaces: BOTH,
  summary: "Views and uploads of the caller's posts over a range",
  rateLimit: "analytics",
  query: analyticsQuery,
  response: reports.AnalyticsReply,
  handler: ({ principal, query }) => reports.analytics(principal, query),
});

export const reportRoutes = [reportPost, reportUser, analytics];
