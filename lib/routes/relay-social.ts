/**
 * Relay social endpoints: discover, follows, blocks, likes, comments, notifications.
 * Thin: the caller's account, the domain verb in lib/social, the JSON of lib/presenters (the OpenAPI documents).
 * Rules and choices: docs/relay-social.md.
 */
import { refuseIfPasswordLocked } from "../posts/share-password";
import type { z } from "zod";
import type { PersonalPrincipal } from "../types/principal";
import { decodeCursor, pageReply } from "../http/cursor";
import type { PagingQuery } from "../http/parse";
import type { PostRecord } from "../posts/read";
import { blockUser, listBlocks as readBlocks, unblockUser, type BlockItem } from "../social/blocks";
import {
  createComment as addComment,
  deleteComment as removeComment,
  listComments as readComments,
  type CommentItem,
} from "../social/comments";
import { discoverPosts } from "../social/discover";
import {
  followUser,
  listFollowers as readFollowers,
  listFollowing as readFollowing,
  removeFollower as dropFollower,
  unfollowUser,
  type FollowState,
} from "../social/follows";
import { likeComment as addCommentLike, likePost as addPostLike, unlikeComment, unlikePost, type LikeState } from "../social/likes";
import { countUnread, listNotifications as readNotifications, markRead, type NotificationItem } from "../social/notifications";
import { ME } from "../social/relations";
import type { commentBody, markReadBody } from "./params";
import { fileView, postView } from "../presenters/post-views";
import { userRef } from "../presenters/views";

/** Relay keys are personal (team keys get 401 before a handler runs): the signed-in user. */
const me = (principal: PersonalPrincipal): string => principal.user.id;

/** The list's owner as the cursor's filter: `@me` is the caller, so both spellings page alike. */
const listFilters = (principal: PersonalPrincipal, id: string) => ({ user: id === ME ? me(principal) : id });

const after = (endpoint: string, query: PagingQuery, filters: Record<string, unknown>) =>
  query.cursor ? decodeCursor(endpoint, query.cursor, filters) : undefined;

const likeJson = (state: LikeState) => ({ liked: state.liked, like_count: state.likeCount });
const followJson = (state: FollowState) => ({ following: state.following, follower_count: state.followerCount });

function commentJson(comment: CommentItem) {
  return {
    id: comment.id,
    body: comment.body,
    user: userRef(comment.user),
    like_count: comment.likeCount,
    liked: comment.liked,
    created_at: comment.createdAt.toISOString(),
  };
}

/** The primary file's thumbnail, or the file itself when it is an image (signed for private posts). */
function thumbnailUrl(post: PostRecord | null): string | null {
  const file = post?.files[0];
  if (!post || !file) return null;
  const view = fileView(post, file, Date.now());
  return view.thumbnail_url ?? (file.mimeType.startsWith("image/") ? view.url : null);
}

function notificationJson(n: NotificationItem) {
  return {
    id: n.id,
    kind: n.kind,
    actors: n.actors.map(userRef),
    actor_count: n.count,
    read: n.read,
    post_code: n.postCode,
    post_thumbnail_url: thumbnailUrl(n.post),
    created_at: n.updatedAt.toISOString(),
  };
}

// ───────────────────────────── discover ─────────────────────────────

export async function discover(principal: PersonalPrincipal, ip: string) {
  const userId = me(principal);
  const items = await discoverPosts(userId, ip);
  return {
    posts: items.map(({ post, liked }) => postView(post, { owner: post.userId === userId, liked, surface: "relay", primaryOnly: true })),
  };
}

// ───────────────────────────── follows ─────────────────────────────

export async function follow(principal: PersonalPrincipal, id: string) {
  return followJson(await followUser(me(principal), id));
}
export async function unfollow(principal: PersonalPrincipal, id: string) {
  return followJson(await unfollowUser(me(principal), id));
}
export async function removeFollower(principal: PersonalPrincipal, id: string) {
  await dropFollower(me(principal), id);
  return { id, deleted: true as const };
}
export async function listFollowers(principal: PersonalPrincipal, id: string, query: PagingQuery) {
  const filters = listFilters(principal, id);
  const page = await readFollowers(me(principal), id, query.limit, after("listFollowers", query, filters));
  return pageReply("users", "listFollowers", filters, page, userRef);
}
export async function listFollowing(principal: PersonalPrincipal, id: string, query: PagingQuery) {
  const filters = listFilters(principal, id);
  const page = await readFollowing(me(principal), id, query.limit, after("listFollowing", query, filters));
  return pageReply("users", "listFollowing", filters, page, userRef);
}

// ───────────────────────────── blocks ─────────────────────────────

export async function block(principal: PersonalPrincipal, id: string) {
  await blockUser(me(principal), id);
  return { blocking: true };
}
export async function unblock(principal: PersonalPrincipal, id: string) {
  await unblockUser(me(principal), id);
  return { blocking: false };
}
export async function listBlocks(principal: PersonalPrincipal, id: string, query: PagingQuery) {
  const filters = listFilters(principal, id);
  const page = await readBlocks(me(principal), id, query.limit, after("listBlocks", query, filters));
  return pageReply("blocks", "listBlocks", filters, page, (b: BlockItem) => ({
    user: userRef(b.user),
    created_at: b.createdAt.toISOString(),
  }));
}

// ───────────────────────────── likes and comments ─────────────────────────────

/** Likes and comments of a password-protected post are the owner's only here (docs/share-passwords.md). */
const refuseLocked = (principal: PersonalPrincipal, code: string) => refuseIfPasswordLocked(code, { userId: me(principal), teamId: null });

export async function likePost(principal: PersonalPrincipal, code: string, on: boolean) {
  await refuseLocked(principal, code);
  return likeJson(on ? await addPostLike(me(principal), code) : await unlikePost(me(principal), code));
}
export async function listComments(principal: PersonalPrincipal, code: string) {
  await refuseLocked(principal, code);
  return { comments: (await readComments(me(principal), code)).map(commentJson) };
}
export async function createComment(principal: PersonalPrincipal, code: string, body: z.output<typeof commentBody>) {
  await refuseLocked(principal, code);
  return { comment: commentJson(await addComment(me(principal), code, body.body)) };
}
export async function deleteComment(principal: PersonalPrincipal, id: string) {
  await removeComment(me(principal), id);
  return { id, deleted: true as const };
}
export async function likeComment(principal: PersonalPrincipal, id: string, on: boolean) {
  return likeJson(on ? await addCommentLike(me(principal), id) : await unlikeComment(me(principal), id));
}

// ───────────────────────────── notifications ─────────────────────────────

export async function listNotifications(principal: PersonalPrincipal, query: PagingQuery) {
  const filters = { user: me(principal) };
  const page = await readNotifications(me(principal), query.limit, after("listNotifications", query, filters));
  return pageReply("notifications", "listNotifications", filters, page, notificationJson);
}
export async function unreadCount(principal: PersonalPrincipal) {
  return { unread_count: await countUnread(me(principal)) };
}
export async function markNotificationsRead(principal: PersonalPrincipal, body: z.output<typeof markReadBody>) {
  return { unread_count: await markRead(me(principal), body.ids) };
}
