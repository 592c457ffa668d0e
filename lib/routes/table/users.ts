/** Users: profiles, their posts, upload history (API and Relay). */
import { defineRoute } from "@/lib/http/route";
import { PostPage } from "@/lib/presenters/posts";
import { GetUserReply, UsageHistoryReply } from "@/lib/presenters/users";
import { idParam, pageQuery } from "@/lib/routes/params";
import { handleGetUser, handleListUserPosts, handleUsageHistory } from "@/lib/routes/users";
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

export const userRoutes = [getUser, userPosts, usageHistory];
