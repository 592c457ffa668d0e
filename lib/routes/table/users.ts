/** Users: profiles, their posts, upload history (API and Relay). */
import { defineRoute } from "@/lib/http/route";
import { PostPage } from "@/lib/presenters/posts";
import { DomainList, GetUserReply, UsageHistoryReply } from "@/lib/presenters/users";
import { idParam, pageQuery } from "@/lib/routes/params";
import { handleGetUser, handleListDomains, handleListUserPosts, handleUsageHistory } from "@/lib/routes/users";
import { BOTH } from "./shared";

const getUser = defineRoute({
  id: "getUser",
  method: "GET",
  path: "/users/{id}",
  surfaces: BOTH,
  summary: "A user's profile; `@me` is the caller's own account",
  params: idParam,
  response: GetUserReply,
  handler: handleGetUser,
});

const userPosts = defineRoute({
  id: "listUserPosts",
  method: "GET",
  path: "/users/{id}/posts",
  surfaces: BOTH,
  summary: "A user's public posts, newest first",
  params: idParam,
  query: pageQuery,
  response: PostPage,
  handler: handleListUserPosts,
});

const usageHistory = defineRoute({
  id: "usageHistory",
  method: "GET",
  path: "/usage-history",
  surfaces: BOTH,
  summary: "Daily upload activity over the last 365 days",
  rateLimit: "usage_history",
  response: UsageHistoryReply,
  handler: handleUsageHistory,
});

const listDomains = defineRoute({
  id: "listDomains",
  method: "GET",
  path: "/domains",
  surfaces: BOTH,
  summary: "The domains the caller may build links on (the x-mediahost-domain upload header, default_domain; docs/domains.md)",
  response: DomainList,
  handler: handleListDomains,
});

export const userRoutes = [getUser, userPosts, usageHistory, listDomains];
