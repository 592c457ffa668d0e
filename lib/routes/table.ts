/**
 * Every endpoint of interface.md, declared once. The catch-all route handlers under
 * app/api and app/relay dispatch into this table, and the OpenAPI documents are generated
 * from it.
 */
import { z } from "zod";
import { accountOf, hasGalleryAccess } from "../types/principal";
import { HISTORY_WINDOW_DAYS, usageHistory as readUsageHistory } from "../usage/history";
import { DomainError } from "../errors";
import type { RouteDef } from "../http/route";
import { defineRoute } from "../http/route";
import { getOwnAccount, getProfile } from "../users/profile";
import {
  analyticsQuery,
  codeParam,
  commentBody,
  fileParam,
  followerParam,
  gifsQuery,
  idParam,
  factorProofBody,
  loginBody,
  passkeyCreateBody,
  passkeyLoginBody,
  passkeyParam,
  passkeyRenameBody,
  totpConfirmBody,
  markReadBody,
  pageQuery,
  postsQuery,
  preferencesBody,
  profileBody,
  registerBody,
  reportBody,
  updatePostBody,
  updatePostBodyRelay,
} from "./params";
import { OwnAccount, paged, Post, Profile, UserRef } from "../presenters/schemas";
import { ownAccount, profile } from "../presenters/views";
import { handleConvert } from "./convert";
import * as account from "./relay-account";
import * as factors from "./relay-factors";
import * as social from "./relay-social";
import * as reports from "./reports";
import { handleGifs } from "./gifs";
import { webhookRoutes } from "./webhooks";
import { handleTusCreate, handleTusDelete, handleTusHead, handleTusPatch, TUS_REPLY_HEADERS, tusOptionsHeaders } from "./tus";
import { batchBody, batchReply, handleBatch } from "./batch";
import {
  handleAddFiles,
  handleDeleteFile,
  handleDeletePost,
  handleGetPost,
  getPostFromCache,
  handleListPosts,
  handleUpdatePost,
  handleUpload,
  handleUserPosts,
} from "./posts";

const BOTH = ["api", "relay"] as const;
const RELAY = ["relay"] as const;
const PERSONAL_AND_TEAM = ["personal", "team"] as const;
const UPLOAD_FIELDS = { file: "One or more files (repeat the field)." };

const postReply = z.object({ post: Post });
const deleted = <K extends string>(key: K) => z.object({ [key]: z.string(), deleted: z.literal(true) } as Record<K, z.ZodString> & { deleted: z.ZodLiteral<true> });
const failedEntry = z.object({ index: z.number().int(), error: z.looseObject({ type: z.string(), message: z.string() }) });

// ───────────────────────────── uploads and posts (API and Relay) ─────────────────────────────

const upload = defineRoute({
  id: "upload",
  method: "POST",
  path: "/upload",
  surfaces: BOTH,
  summary: "Upload one or more files; each becomes part of a post",
  keys: PERSONAL_AND_TEAM,
  refusesLapsedTeam: true,
  rateLimit: "upload",
  multipart: { fields: UPLOAD_FIELDS },
  response: z.union([
    z.object({ url: z.url(), post: Post, failed: z.array(failedEntry).optional() }),
    z.object({ posts: z.array(Post), failed: z.array(failedEntry).optional() }),
  ]),
  handler: ({ principal, request, surface }) => handleUpload(principal, request, surface),
});

const listPosts = defineRoute({
  id: "listPosts",
  method: "GET",
  path: "/posts",
  surfaces: BOTH,
  summary: "The caller's own posts, newest first",
  galleryAccess: true,
  rateLimit: "posts_list",
  query: postsQuery,
  response: paged("posts", Post),
  handler: ({ principal, surface, query }) => handleListPosts(principal, surface, query),
});

const getPost = defineRoute({
  id: "getPost",
  method: "GET",
  path: "/posts/{code}",
  surfaces: BOTH,
  summary: "One post",
  rateLimit: "posts_get",
  params: codeParam,
  response: postReply,
  handler: ({ principal, surface, params, ip }) => handleGetPost(principal, surface, params.code, ip),
  fromCache: ({ principal, surface, params }) => getPostFromCache(principal, surface, params.code),
});

const updatePostFields = {
  id: "updatePost",
  method: "PATCH",
  path: "/posts/{code}",
  surfaces: ["api"],
  summary: "Edit a post's title, description or privacy",
  keys: PERSONAL_AND_TEAM,
  galleryAccess: true,
  rateLimit: "posts_update",
  params: codeParam,
  body: updatePostBody,
  response: postReply,
} as const;

const updatePostApi = defineRoute({
  ...updatePostFields,
  handler: ({ principal, surface, params, body }) => handleUpdatePost(principal, surface, params.code, body),
});

const updatePostRelay = defineRoute({
  ...updatePostFields,
  id: "updatePostRelay",
  surfaces: RELAY,
  summary: "Edit a post; on Relay also its access list",
  body: updatePostBodyRelay,
  handler: ({ principal, surface, params, body }) => handleUpdatePost(principal, surface, params.code, body),
});

const deletePost = defineRoute({
  id: "deletePost",
  method: "DELETE",
  path: "/posts/{code}",
  surfaces: BOTH,
  summary: "Delete a post and its files",
  keys: PERSONAL_AND_TEAM,
  galleryAccess: true,
  rateLimit: "posts_delete",
  params: codeParam,
  response: deleted("code"),
  handler: ({ principal, surface, params }) => handleDeletePost(principal, surface, params.code),
});

// One request for many posts (docs/bulk-actions.md): its own bucket, one hit per request.
const batchPosts = defineRoute({
  id: "batchPosts",
  method: "POST",
  path: "/posts/batch",
  surfaces: BOTH,
  summary: "Delete many posts, or set their privacy, in one request; each post succeeds or fails alone",
  keys: PERSONAL_AND_TEAM,
  galleryAccess: true,
  rateLimit: "posts_batch",
  body: batchBody,
  response: batchReply,
  handler: ({ principal, surface, body }) => handleBatch(principal, surface, body),
});

const addFiles = defineRoute({
  id: "addFiles",
  method: "POST",
  path: "/posts/{code}/files",
  surfaces: BOTH,
  summary: "Add files to a post (album of at most 9)",
  keys: PERSONAL_AND_TEAM,
  galleryAccess: true,
  refusesLapsedTeam: true,
  rateLimit: "posts_files_add",
  params: codeParam,
  multipart: { fields: UPLOAD_FIELDS },
  response: z.object({ post: Post, failed: z.array(failedEntry).optional() }),
  handler: ({ principal, request, surface, params }) => handleAddFiles(principal, request, surface, params.code),
});

// ───────────────────────────── resumable uploads (tus 1.0, docs/resumable-uploads.md) ─────────────────────────────

const tusIdParam = z.object({ id: z.string().regex(/^[0-9a-f]{24}$/, "id is not a valid upload id.") });
const TUS_REQUEST = { "tus-resumable": "Required on every request but OPTIONS: `1.0.0` (else 412)." };
const TUS_STATE = {
  "upload-offset": "Bytes received so far.",
  "upload-expires": "When the unfinished upload and its bytes are removed (RFC 7231 date).",
  "upload-post": "Share code of the post the finished upload became (GET /posts/{code}).",
};
const tusRoute = {
  surfaces: BOTH,
  keys: PERSONAL_AND_TEAM,
  refusesLapsedTeam: true,
  replyHeaders: TUS_REPLY_HEADERS,
  optionsHeaders: tusOptionsHeaders,
} as const;

const tusCreate = defineRoute({
  ...tusRoute,
  id: "tusCreate",
  method: "POST",
  path: "/tus",
  summary: "Start a resumable (tus 1.0) upload; the body may carry the first bytes (creation-with-upload)",
  rateLimit: "upload",
  rawBody: "application/offset+octet-stream",
  requestHeaders: {
    ...TUS_REQUEST,
    "upload-length": "Size of the file in bytes (required; over the plan's file cap: 413). Reserved from the weekly quota until the upload ends.",
    "upload-metadata":
      "tus metadata, `key base64value` pairs: `filename`, and POST /upload's `post-privacy`, `include-metadata`, `priority`, `post-type`; `post` (a share code) appends to that post instead.",
  },
  reply: { status: 201, description: "Created; `Location` is the upload's URL.", headers: { location: "URL of the upload (HEAD, PATCH, DELETE).", ...TUS_STATE } },
  handler: ({ principal, request, surface }) => handleTusCreate(principal, request, surface),
});

const tusHead = defineRoute({
  ...tusRoute,
  id: "tusHead",
  method: "HEAD",
  path: "/tus/{id}",
  summary: "Where a resumable upload stands (offset, length, metadata; the post once finished)",
  params: tusIdParam,
  requestHeaders: TUS_REQUEST,
  reply: { status: 200, description: "The upload's state (no body); 410 once expired.", headers: { "upload-length": "Size of the file.", "upload-metadata": "As sent at creation.", ...TUS_STATE } },
  handler: ({ principal, request, params }) => handleTusHead(principal, request, params.id),
});

const tusPatch = defineRoute({
  ...tusRoute,
  id: "tusPatch",
  method: "PATCH",
  path: "/tus/{id}",
  summary: "Send the next bytes of a resumable upload; the last ones make the post",
  params: tusIdParam,
  rawBody: "application/offset+octet-stream",
  requestHeaders: { ...TUS_REQUEST, "upload-offset": "Where these bytes start: the upload's current offset (else 409)." },
  reply: {
    status: 204,
    description: "Stored. When the file is complete it went through POST /upload's pipeline, and its errors are answered here.",
    headers: TUS_STATE,
  },
  handler: ({ principal, request, surface, params }) => handleTusPatch(principal, request, surface, params.id),
});

const tusDelete = defineRoute({
  ...tusRoute,
  id: "tusDelete",
  method: "DELETE",
  path: "/tus/{id}",
  summary: "Terminate a resumable upload: its bytes and its reserved quota go",
  params: tusIdParam,
  requestHeaders: TUS_REQUEST,
  reply: { status: 204, description: "Terminated.", headers: {} },
  handler: ({ principal, request, params }) => handleTusDelete(principal, request, params.id),
});

const deleteFile = defineRoute({
  id: "deleteFile",
  method: "DELETE",
  path: "/posts/{code}/files/{name}",
  surfaces: BOTH,
  summary: "Remove one file of a post",
  keys: PERSONAL_AND_TEAM,
  galleryAccess: true,
  rateLimit: "posts_delete",
  params: fileParam,
  response: deleted("name"),
  handler: ({ principal, surface, params }) => handleDeleteFile(principal, surface, params.code, params.name),
});

const convert = defineRoute({
  id: "convert",
  method: "POST",
  path: "/convert",
  surfaces: BOTH,
  summary: "Convert one image or video; the converted file is the reply",
  keys: PERSONAL_AND_TEAM,
  refusesLapsedTeam: true,
  rateLimit: "convert",
  multipart: { fields: { file: "The file to convert (only the first is read)." } },
  response: { binary: "The converted file as an attachment" },
  handler: ({ principal, request }) => handleConvert(principal, request),
});

const gifs = defineRoute({
  id: "listGifs",
  method: "GET",
  path: "/gifs",
  surfaces: BOTH,
  summary: "Public posts whose first file is a GIF, newest first",
  auth: "optional",
  rateLimit: "gifs",
  query: gifsQuery,
  response: paged("posts", Post),
  handler: ({ principal, surface, query }) => handleGifs(principal, surface, query),
});

// ───────────────────────────── users ─────────────────────────────

const getUser = defineRoute({
  id: "getUser",
  method: "GET",
  path: "/users/{id}",
  surfaces: BOTH,
  summary: "A user's profile; `@me` is the caller's own account",
  params: idParam,
  response: z.union([OwnAccount, Profile]),
  async handler({ params, principal }) {
    const me = principal.kind === "team" ? null : principal.user;
    if (!me) throw new DomainError("unauthorized", "Team keys cannot read profiles.");
    if (params.id === "@me" || params.id === me.id) {
      return ownAccount(await getOwnAccount(me.id), hasGalleryAccess(principal));
    }
    return profile(await getProfile(me.id, params.id));
  },
});

const userPosts = defineRoute({
  id: "listUserPosts",
  method: "GET",
  path: "/users/{id}/posts",
  surfaces: BOTH,
  summary: "A user's public posts, newest first",
  params: idParam,
  query: pageQuery,
  response: paged("posts", Post),
  handler: ({ principal, surface, params, query }) => handleUserPosts(principal, surface, params.id, query),
});

const usageHistory = defineRoute({
  id: "usageHistory",
  method: "GET",
  path: "/usage-history",
  surfaces: BOTH,
  summary: "Daily upload activity over the last 365 days",
  rateLimit: "usage_history",
  response: z.object({
    history: z.array(z.object({ day: z.string(), bytes: z.number().int(), upload_count: z.number().int() })),
    stats: z.object({
      total_bytes: z.number().int(),
      upload_count: z.number().int(),
      active_days: z.number().int(),
      current_streak: z.number().int(),
      biggest_day: z.object({ day: z.string(), bytes: z.number().int() }).nullable(),
      window_days: z.number().int(),
    }),
  }),
  async handler({ principal }) {
    const h = await readUsageHistory(accountOf(principal).id);
    return {
      history: h.history.map((d) => ({ day: d.day, bytes: d.bytes, upload_count: d.uploadCount })),
      stats: {
        total_bytes: h.totalBytes,
        upload_count: h.uploadCount,
        active_days: h.activeDays,
        current_streak: h.currentStreak,
        biggest_day: h.biggestDay,
        window_days: HISTORY_WINDOW_DAYS,
      },
    };
  },
});

const reported = z.object({ reported: z.literal(true) });

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

// ───────────────────────────── Relay only ─────────────────────────────

const discover = defineRoute({
  id: "discover",
  method: "GET",
  path: "/discover",
  surfaces: RELAY,
  summary: "Up to 50 public posts, recent and popular mixed",
  response: z.object({ posts: z.array(Post) }),
  handler: ({ principal, ip }) => social.discover(principal, ip),
});

const userReply = z.object({ user: OwnAccount });

const updateProfile = defineRoute({
  id: "updateProfile",
  method: "PATCH",
  path: "/users/@me",
  surfaces: RELAY,
  summary: "Update the caller's profile and theme",
  body: profileBody,
  // A body that changes only the theme counts against the theme bucket (20/min).
  rateLimit: (body) => (body && Object.keys(body).length === 1 && "theme" in body ? "theme_update" : "profile_update"),
  response: userReply,
  handler: ({ principal, body }) => account.updateProfile(principal, body),
});

const imageRoute = (kind: "avatar" | "banner", method: "POST" | "DELETE") =>
  defineRoute({
    id: `${method === "POST" ? "set" : "remove"}${kind === "avatar" ? "Avatar" : "Banner"}`,
    method,
    path: `/users/@me/${kind}`,
    surfaces: RELAY,
    summary: `${method === "POST" ? "Upload" : "Remove"} the caller's ${kind}`,
    rateLimit: kind,
    ...(method === "POST" ? { multipart: { fields: { file: `The ${kind} image.` } } } : {}),
    response: userReply,
    handler: ({ principal, request }) =>
      method === "POST" ? account.setImage(principal, kind, request) : account.removeImage(principal, kind),
  });

const followReply = z.object({ following: z.boolean(), follower_count: z.number().int() });
const blockReply = z.object({ blocking: z.boolean() });
const likeReply = z.object({ liked: z.boolean(), like_count: z.number().int() });
const Comment = z
  .object({ id: z.string(), body: z.string(), user: UserRef, like_count: z.number().int(), liked: z.boolean(), created_at: z.string() })
  .meta({ id: "Comment" });
const Notification = z
  .object({
    id: z.string(),
    kind: z.string(),
    actors: z.array(UserRef),
    actor_count: z.number().int().describe("Distinct actors in the entry (`actors` lists at most 10)"),
    read: z.boolean(),
    post_code: z.string().nullable(),
    post_thumbnail_url: z.url().nullable(),
    created_at: z.string(),
  })
  .meta({ id: "Notification" });
const Preferences = z.object({ likes: z.boolean(), comments: z.boolean(), comment_likes: z.boolean(), follows: z.boolean() });
const Session = z.object({ id: z.string(), name: z.string().nullable(), current: z.boolean(), created_at: z.string(), last_active_at: z.string() });
const PasskeyView = z.object({ id: z.string(), name: z.string(), backed_up: z.boolean(), created_at: z.string(), last_used_at: z.string().nullable() });

const relayRoutes = [
  discover,
  updateProfile,
  imageRoute("avatar", "POST"),
  imageRoute("avatar", "DELETE"),
  imageRoute("banner", "POST"),
  imageRoute("banner", "DELETE"),
  defineRoute({ id: "follow", method: "POST", path: "/users/{id}/follow", surfaces: RELAY, summary: "Follow a user", rateLimit: "follow", params: idParam, response: followReply , handler: ({ principal, params }) => social.follow(principal, params.id) }),
  defineRoute({ id: "unfollow", method: "DELETE", path: "/users/{id}/follow", surfaces: RELAY, summary: "Stop following a user", rateLimit: "unfollow", params: idParam, response: followReply , handler: ({ principal, params }) => social.unfollow(principal, params.id) }),
  defineRoute({ id: "removeFollower", method: "DELETE", path: "/users/@me/followers/{id}", surfaces: RELAY, summary: "Remove a follower", rateLimit: "unfollow", params: followerParam, response: deleted("id") , handler: ({ principal, params }) => social.removeFollower(principal, params.id) }),
  defineRoute({ id: "listFollowers", method: "GET", path: "/users/{id}/followers", surfaces: RELAY, summary: "Who follows a user", rateLimit: "followers_list", params: idParam, query: pageQuery, response: paged("users", UserRef) , handler: ({ principal, params, query }) => social.listFollowers(principal, params.id, query) }),
  defineRoute({ id: "listFollowing", method: "GET", path: "/users/{id}/following", surfaces: RELAY, summary: "Whom a user follows", rateLimit: "following_list", params: idParam, query: pageQuery, response: paged("users", UserRef) , handler: ({ principal, params, query }) => social.listFollowing(principal, params.id, query) }),
  defineRoute({ id: "block", method: "POST", path: "/users/{id}/block", surfaces: RELAY, summary: "Block a user", rateLimit: "block", params: idParam, response: blockReply , handler: ({ principal, params }) => social.block(principal, params.id) }),
  defineRoute({ id: "unblock", method: "DELETE", path: "/users/{id}/block", surfaces: RELAY, summary: "Unblock a user", rateLimit: "unblock", params: idParam, response: blockReply , handler: ({ principal, params }) => social.unblock(principal, params.id) }),
  defineRoute({ id: "listBlocks", method: "GET", path: "/users/{id}/blocks", surfaces: RELAY, summary: "The caller's blocks (`@me`)", params: idParam, query: pageQuery, response: paged("blocks", z.object({ user: UserRef, created_at: z.string() })) , handler: ({ principal, params, query }) => social.listBlocks(principal, params.id, query) }),
  defineRoute({ id: "likePost", method: "POST", path: "/posts/{code}/like", surfaces: RELAY, summary: "Like a post (safe to repeat)", rateLimit: "likes", params: codeParam, response: likeReply , handler: ({ principal, params }) => social.likePost(principal, params.code, true) }),
  defineRoute({ id: "unlikePost", method: "DELETE", path: "/posts/{code}/like", surfaces: RELAY, summary: "Remove a like (safe to repeat)", rateLimit: "likes", params: codeParam, response: likeReply , handler: ({ principal, params }) => social.likePost(principal, params.code, false) }),
  defineRoute({ id: "listComments", method: "GET", path: "/posts/{code}/comments", surfaces: RELAY, summary: "Up to 500 comments of a post", params: codeParam, response: z.object({ comments: z.array(Comment) }) , handler: ({ principal, params }) => social.listComments(principal, params.code) }),
  defineRoute({ id: "createComment", method: "POST", path: "/posts/{code}/comments", surfaces: RELAY, summary: "Comment on a post", rateLimit: "comments_write", params: codeParam, body: commentBody, response: z.object({ comment: Comment }) , handler: ({ principal, params, body }) => social.createComment(principal, params.code, body) }),
  defineRoute({ id: "deleteComment", method: "DELETE", path: "/comments/{id}", surfaces: RELAY, summary: "Delete a comment (author or post owner)", rateLimit: "comments_write", params: idParam, response: deleted("id") , handler: ({ principal, params }) => social.deleteComment(principal, params.id) }),
  defineRoute({ id: "likeComment", method: "POST", path: "/comments/{id}/like", surfaces: RELAY, summary: "Like a comment", rateLimit: "likes", params: idParam, response: likeReply , handler: ({ principal, params }) => social.likeComment(principal, params.id, true) }),
  defineRoute({ id: "unlikeComment", method: "DELETE", path: "/comments/{id}/like", surfaces: RELAY, summary: "Remove a comment like", rateLimit: "likes", params: idParam, response: likeReply , handler: ({ principal, params }) => social.likeComment(principal, params.id, false) }),
  defineRoute({ id: "reportComment", method: "POST", path: "/comments/{id}/report", surfaces: RELAY, summary: "Report a comment", rateLimit: "reports", params: idParam, body: reportBody, response: reported , handler: ({ principal, params, body, ip }) => reports.report(principal, { kind: "comment", id: params.id }, body, ip) }),
  defineRoute({ id: "listNotifications", method: "GET", path: "/notifications", surfaces: RELAY, summary: "Notifications, grouped, newest first", rateLimit: "notifications_list", query: pageQuery, response: paged("notifications", Notification) , handler: ({ principal, query }) => social.listNotifications(principal, query) }),
  defineRoute({ id: "unreadCount", method: "GET", path: "/notifications/unread-count", surfaces: RELAY, summary: "Number of unread notifications", rateLimit: "notifications_unread", response: z.object({ unread_count: z.number().int() }) , handler: ({ principal }) => social.unreadCount(principal) }),
  defineRoute({ id: "markNotificationsRead", method: "POST", path: "/notifications/read", surfaces: RELAY, summary: "Mark notifications read (all, or the given ids)", rateLimit: "notifications_read", body: markReadBody, response: z.object({ unread_count: z.number().int() }) , handler: ({ principal, body }) => social.markNotificationsRead(principal, body) }),
  defineRoute({ id: "getPreferences", method: "GET", path: "/preferences", surfaces: RELAY, summary: "Notification preferences", rateLimit: "preferences_get", response: Preferences , handler: ({ principal }) => account.getPreferences(principal) }),
  defineRoute({ id: "updatePreferences", method: "PATCH", path: "/preferences", surfaces: RELAY, summary: "Change notification preferences", rateLimit: "preferences_update", body: preferencesBody, response: Preferences , handler: ({ principal, body }) => account.updatePreferences(principal, body) }),
  defineRoute({ id: "listSessions", method: "GET", path: "/sessions", surfaces: RELAY, summary: "The caller's signed-in devices", response: z.object({ sessions: z.array(Session) }) , handler: ({ principal }) => account.listSessions(principal) }),
  defineRoute({ id: "deleteSession", method: "DELETE", path: "/sessions/{id}", surfaces: RELAY, summary: "Sign one device out", params: idParam, response: deleted("id") , handler: ({ principal, params }) => account.deleteSession(principal, params.id) }),
  defineRoute({ id: "deleteSessions", method: "DELETE", path: "/sessions", surfaces: RELAY, summary: "Sign every device out", response: z.object({ deleted_count: z.number().int() }) , handler: ({ principal }) => account.deleteSessions(principal) }),
  defineRoute({ id: "login", method: "POST", path: "/auth/login", surfaces: RELAY, summary: "Sign in; returns a relay-key", auth: "none", body: loginBody, response: z.object({ key: z.string(), session: Session }) , handler: ({ body, request, ip }) => account.login(body, request, ip) }),
  defineRoute({ id: "register", method: "POST", path: "/auth/register", surfaces: RELAY, summary: "Create an account (when sign-up is open); returns a relay-key", auth: "none", body: registerBody, response: z.object({ key: z.string(), session: Session }) , handler: ({ body, request, ip }) => account.register(body, request, ip) }),
  // Sign-in factors (own additions; docs/two-factor.md, docs/passkeys.md).
  defineRoute({ id: "getTwoFactor", method: "GET", path: "/auth/two-factor", surfaces: RELAY, summary: "Two-factor sign-in status", rateLimit: "two_factor", response: z.object({ totp_enabled: z.boolean(), recovery_codes_left: z.number().int(), passkey_count: z.number().int() }), handler: ({ principal }) => factors.getTwoFactor(principal) }),
  defineRoute({ id: "startTotp", method: "POST", path: "/auth/two-factor/totp", surfaces: RELAY, summary: "Start setting up an authenticator app (not in force until confirmed)", rateLimit: "two_factor", response: z.object({ secret: z.string(), otpauth_uri: z.string() }), handler: ({ principal }) => factors.startTotp(principal) }),
  defineRoute({ id: "confirmTotp", method: "POST", path: "/auth/two-factor/totp/confirm", surfaces: RELAY, summary: "Confirm the authenticator app with a code; returns the recovery codes, once", rateLimit: "two_factor", body: totpConfirmBody, response: z.object({ totp_enabled: z.literal(true), recovery_codes: z.array(z.string()) }), handler: ({ principal, body, ip }) => factors.confirmTotp(principal, body, ip) }),
  defineRoute({ id: "disableTotp", method: "POST", path: "/auth/two-factor/disable", surfaces: RELAY, summary: "Turn two-factor sign-in off (password or code)", rateLimit: "two_factor", body: factorProofBody, response: z.object({ totp_enabled: z.literal(false) }), handler: ({ principal, body, ip }) => factors.disableTotp(principal, body, ip) }),
  defineRoute({ id: "renewRecoveryCodes", method: "POST", path: "/auth/two-factor/recovery-codes", surfaces: RELAY, summary: "New recovery codes (password or code); the old ones stop working", rateLimit: "two_factor", body: factorProofBody, response: z.object({ recovery_codes: z.array(z.string()) }), handler: ({ principal, body, ip }) => factors.newRecoveryCodes(principal, body, ip) }),
  defineRoute({ id: "listPasskeys", method: "GET", path: "/auth/passkeys", surfaces: RELAY, summary: "The caller's passkeys", rateLimit: "passkeys", response: z.object({ passkeys: z.array(PasskeyView) }), handler: ({ principal }) => factors.listPasskeys(principal) }),
  defineRoute({ id: "passkeyOptions", method: "POST", path: "/auth/passkeys/options", surfaces: RELAY, summary: "WebAuthn creation options for a new passkey", rateLimit: "passkeys", response: z.object({ options: z.looseObject({ challenge: z.string() }) }), handler: ({ principal }) => factors.passkeyOptions(principal) }),
  defineRoute({ id: "createPasskey", method: "POST", path: "/auth/passkeys", surfaces: RELAY, summary: "Register a passkey (the browser's answer to the options)", rateLimit: "passkeys", body: passkeyCreateBody, response: z.object({ passkey: PasskeyView }), handler: ({ principal, body }) => factors.createPasskey(principal, body) }),
  defineRoute({ id: "renamePasskey", method: "PATCH", path: "/auth/passkeys/{id}", surfaces: RELAY, summary: "Rename a passkey", rateLimit: "passkeys", params: passkeyParam, body: passkeyRenameBody, response: z.object({ passkey: PasskeyView }), handler: ({ principal, params, body }) => factors.renamePasskey(principal, params.id, body) }),
  defineRoute({ id: "deletePasskey", method: "DELETE", path: "/auth/passkeys/{id}", surfaces: RELAY, summary: "Delete a passkey", rateLimit: "passkeys", params: passkeyParam, response: deleted("id"), handler: ({ principal, params }) => factors.deletePasskey(principal, params.id) }),
  defineRoute({ id: "passkeyLoginOptions", method: "POST", path: "/auth/passkey-login/options", surfaces: RELAY, summary: "WebAuthn request options for signing in with a passkey", auth: "none", response: z.object({ options: z.looseObject({ challenge: z.string() }) }), handler: ({ ip }) => factors.passkeyLoginOptions(ip) }),
  defineRoute({ id: "passkeyLogin", method: "POST", path: "/auth/passkey-login", surfaces: RELAY, summary: "Sign in with a passkey; returns a relay-key", auth: "none", body: passkeyLoginBody, response: z.object({ key: z.string(), session: Session }), handler: ({ body, request, ip }) => factors.passkeyLogin(body, request, ip) }),
];

export const ROUTES: readonly RouteDef[] = [
  upload,
  listPosts,
  getPost,
  updatePostApi,
  updatePostRelay,
  deletePost,
  batchPosts,
  addFiles,
  tusCreate,
  tusHead,
  tusPatch,
  tusDelete,
  deleteFile,
  convert,
  gifs,
  getUser,
  userPosts,
  usageHistory,
  reportPost,
  reportUser,
  analytics,
  ...webhookRoutes,
  ...relayRoutes,
] as readonly RouteDef[];
