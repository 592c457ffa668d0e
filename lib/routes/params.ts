/** Path, query and body pieces shared by several routes. */
import { z } from "zod";
import { LIMITS, limitedText, pagingQuery, PRIVACIES } from "../http/parse";
import { ANALYTICS_RANGES, DEFAULT_ANALYTICS_RANGE } from "../analytics/analytics";
import { GALLERY_TABS } from "../posts/list";

export const codeParam = z.object({
  code: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "code is not a valid share code."),
});
export const idParam = z.object({ id: z.string().min(1).max(64).regex(/^[A-Za-z0-9_@.-]+$/, "id is not a valid id.") });
export const fileParam = codeParam.extend({
  name: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[^/\\\u0000]+\.[A-Za-z0-9]{1,8}$/, "name must be a file name with its extension."),
});
export const followerParam = z.object({ id: idParam.shape.id });

export const pageQuery = pagingQuery;
export const postsQuery = pagingQuery.extend({
  search: z.string().max(100).optional(),
  privacy: z.enum(PRIVACIES, { error: "privacy must be public, unlisted or private." }).optional(),
  tab: z.enum(GALLERY_TABS, { error: `tab must be one of ${GALLERY_TABS.join(", ")}.` }).optional(),
});
export const gifsQuery = pagingQuery.extend({ search: z.string().max(300).optional() });
export const analyticsQuery = z.object({
  range: z
    .enum(ANALYTICS_RANGES, { error: `range must be one of ${ANALYTICS_RANGES.join(", ")}.` })
    .default(DEFAULT_ANALYTICS_RANGE),
});

const nullableText = (field: string, max: number) => limitedText(field, max).nullable().optional();

export const updatePostBody = z.object({
  title: nullableText("title", LIMITS.title),
  description: nullableText("description", LIMITS.description),
  privacy: z.enum(PRIVACIES, { error: "privacy must be public, unlisted or private." }).optional(),
});
export const updatePostBodyRelay = updatePostBody.extend({
  access: z.array(z.string().min(1).max(64), { error: "access must be a JSON array of usernames." }).max(100).optional(),
});
export const reportBody = z.object({ reason: nullableText("reason", LIMITS.reason) });
export const commentBody = z.object({
  body: limitedText("body", LIMITS.comment).refine((s) => s.trim().length > 0, "body must not be empty."),
});
export const profileBody = z.object({
  nickname: nullableText("nickname", 32),
  bio: nullableText("bio", 200),
  theme: z.unknown().optional(),
});
export const preferencesBody = z.object({
  likes: z.boolean().optional(),
  comments: z.boolean().optional(),
  comment_likes: z.boolean().optional(),
  follows: z.boolean().optional(),
});
export const markReadBody = z.object({ ids: z.array(z.string().min(1).max(64)).max(100).optional() });
export const loginBody = z.object({
  username: z.string().min(1).max(254).describe("Username or email"),
  password: z.string().min(1).max(1024),
  device: z.string().max(100).optional(),
});
export const registerBody = z.object({
  username: z.string().min(2).max(32),
  password: z.string().min(8).max(1024),
  email: z.email().optional(),
  invite: z.string().max(64).optional(),
});
