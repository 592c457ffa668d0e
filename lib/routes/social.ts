/** Handlers of the social area (Relay; docs/relay-social.md). */
import { z } from "zod";
import { decodeCursor, pageReply } from "@/lib/http/cursor";
import { LIMITS, limitedText, type PagingQuery } from "@/lib/http/parse";
import type { RouteContext } from "@/lib/http/route";
import { refuseIfPasswordLocked } from "@/lib/posts/share-password";
import { blockView, commentView, followView, likeView, notificationView } from "@/lib/replies/social";
import { userRef } from "@/lib/presenters/users";
import { reportComment } from "@/lib/reports/submit";
import { blockUser, listBlocks, unblockUser } from "@/lib/social/blocks";
import { createComment, deleteComment, listComments } from "@/lib/social/comments";
import { followUser, listFollowers, listFollowing, removeFollower, unfollowUser } from "@/lib/social/follows";
import { likeComment, likePost, unlikeComment, unlikePost } from "@/lib/social/likes";
import { countUnread, listNotifications, markRead } from "@/lib/social/notifications";
import { ME } from "@/lib/social/relations";
import type { PersonalPrincipal } from "@/lib/types/principal";
import { type codeParam, idParam, type pageQuery, type reportBody } from "./params";

export const followerParam = z.object({ id: idParam.shape.id });
export const commentBody = z.object({
  body: limitedText("body", LIMITS.comment).refine((s) => s.trim().length > 0, "body must not be empty."),
});
export const markReadBody = z.object({ ids: z.array(z.string().min(1).max(64)).max(100).optional() });

type ById = { params: typeof idParam };
type ByCode = { params: typeof codeParam };
type UserList = RouteContext<ById & { query: typeof pageQuery }>;

const me = (principal: PersonalPrincipal): string => principal.user.id;

/** The list's owner as the cursor's filter: `@me` is the caller, so both spellings page alike. */
const listFilters = (principal: PersonalPrincipal, id: string) => ({ user: id === ME ? me(principal) : id });

const after = (endpoint: string, query: PagingQuery, filters: Record<string, unknown>) =>
  query.cursor ? decodeCursor(endpoint, query.cursor, filters) : undefined;

/** Likes and comments of a password-protected post are the owner's only here (docs/share-passwords.md). */
const refuseLocked = (principal: PersonalPrincipal, code: string) => refuseIfPasswordLocked(code, { userId: me(principal), teamId: null });

export async function handleFollow({ principal, params }: RouteContext<ById>) {
  return followView(await followUser(me(principal), params.id));
}
export async function handleUnfollow({ principal, params }: RouteContext<ById>) {
  return followView(await unfollowUser(me(principal), params.id));
}
export async function handleRemoveFollower({ principal, params }: RouteContext<{ params: typeof followerParam }>) {
  await removeFollower(me(principal), params.id);
  return { id: params.id, deleted: true as const };
}
export async function handleListFollowers({ principal, params, query }: UserList) {
  const filters = listFilters(principal, params.id);
  const page = await listFollowers(me(principal), params.id, query.limit, after("listFollowers", query, filters));
  return pageReply("users", "listFollowers", filters, page, userRef);
}
export async function handleListFollowing({ principal, params, query }: UserList) {
  const filters = listFilters(principal, params.id);
  const page = await listFollowing(me(principal), params.id, query.limit, after("listFollowing", query, filters));
  return pageReply("users", "listFollowing", filters, page, userRef);
}

export async function handleBlock({ principal, params }: RouteContext<ById>) {
  await blockUser(me(principal), params.id);
  return { blocking: true };
}
export async function handleUnblock({ principal, params }: RouteContext<ById>) {
  await unblockUser(me(principal), params.id);
  return { blocking: false };
}
export async function handleListBlocks({ principal, params, query }: UserList) {
  const filters = listFilters(principal, params.id);
  const page = await listBlocks(me(principal), params.id, query.limit, after("listBlocks", query, filters));
  return pageReply("blocks", "listBlocks", filters, page, blockView);
}

export async function handleLikePost({ principal, params }: RouteContext<ByCode>) {
  await refuseLocked(principal, params.code);
  return likeView(await likePost(me(principal), params.code));
}
export async function handleUnlikePost({ principal, params }: RouteContext<ByCode>) {
  await refuseLocked(principal, params.code);
  return likeView(await unlikePost(me(principal), params.code));
}
export async function handleListComments({ principal, params }: RouteContext<ByCode>) {
  await refuseLocked(principal, params.code);
  return { comments: (await listComments(me(principal), params.code)).map(commentView) };
}
export async function handleCreateComment({ principal, params, body }: RouteContext<ByCode & { body: typeof commentBody }>) {
  await refuseLocked(principal, params.code);
  return { comment: commentView(await createComment(me(principal), params.code, body.body)) };
}
export async function handleDeleteComment({ principal, params }: RouteContext<ById>) {
  await deleteComment(me(principal), params.id);
  return { id: params.id, deleted: true as const };
}
export async function handleLikeComment({ principal, params }: RouteContext<ById>) {
  return likeView(await likeComment(me(principal), params.id));
}
export async function handleUnlikeComment({ principal, params }: RouteContext<ById>) {
  return likeView(await unlikeComment(me(principal), params.id));
}
/** `{reported: true}`, also when the same reporter had already reported the comment (docs/reports.md). */
export async function handleReportComment({ principal, params, body, ip }: RouteContext<ById & { body: typeof reportBody }>) {
  await reportComment(params.id, { reporterId: me(principal), reason: body.reason, ip });
  return { reported: true as const };
}

export async function handleListNotifications({ principal, query }: RouteContext<{ query: typeof pageQuery }>) {
  const filters = { user: me(principal) };
  const page = await listNotifications(me(principal), query.limit, after("listNotifications", query, filters));
  return pageReply("notifications", "listNotifications", filters, page, notificationView);
}
export async function handleUnreadCount({ principal }: RouteContext) {
  return { unread_count: await countUnread(me(principal)) };
}
export async function handleMarkNotificationsRead({ principal, body }: RouteContext<{ body: typeof markReadBody }>) {
  return { unread_count: await markRead(me(principal), body.ids) };
}
