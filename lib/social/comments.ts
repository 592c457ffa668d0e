/**
 * Comments (docs/relay-social.md, "Comments"). `Post.commentCount` moves in the insert's or
 * delete's transaction, only when a row really was inserted or deleted. A comment notifies
 * the post's author and each @mentioned user who may see the post.
 */
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { isForeignKeyViolation } from "@/lib/prisma-support";
import { readPost, type PostRecord } from "@/lib/posts/read";
import type { UserRecord } from "@/lib/users/profile";
import { notify } from "./notifications";
import { assertNoBlock, blockBetween, postToDisengage, postToEngage, visibleUserWhere } from "./relations";
import { refreshDiscoverScore, scoreSelect } from "./score";
import { emitPostEvent } from "@/lib/posts/events";

export const MAX_COMMENTS = 500;
/** More are ignored. */
export const MAX_MENTIONS = 10;

export interface CommentItem {
  id: string;
  body: string;
  likeCount: number;
  createdAt: Date;
  user: UserRecord;
  liked: boolean;
}

export interface CommentRecord {
  id: string;
  postId: string;
  userId: string;
  post: { code: string; userId: string | null };
  user: { suspended: boolean };
}

const commentNotFound = () => new DomainError("not_found", "No such comment.");

async function findComment(commentId: string): Promise<CommentRecord> {
  const comment = await db().comment.findUnique({
    where: { id: commentId },
    select: { id: true, postId: true, userId: true, post: { select: { code: true, userId: true } }, user: { select: { suspended: true } } },
  });
  if (!comment) throw commentNotFound();
  return comment;
}

/** Its post must allow engaging, the comment be listed for the user, and no block stand between them and its author. */
export async function commentToEngage(commentId: string, userId: string): Promise<CommentRecord> {
  const comment = await findComment(commentId);
  await postToEngage(comment.post.code, userId);
  if (comment.user.suspended) throw commentNotFound();
  await assertNoBlock(db(), userId, comment.userId);
  return comment;
}

export async function commentToDisengage(commentId: string, userId: string): Promise<CommentRecord> {
  const comment = await findComment(commentId);
  await postToDisengage(comment.post.code, userId);
  return comment;
}

/** Suspended and blocked authors are left out in the query, so hidden comments never take a place among the 500. */
export async function listComments(userId: string, code: string): Promise<CommentItem[]> {
  const { post } = await readPost(code, { userId, teamId: null });
  const rows = await db().comment.findMany({
    where: { postId: post.id, user: visibleUserWhere(userId) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: MAX_COMMENTS,
    include: { user: true },
  });
  const liked = new Set(
    (await db().commentLike.findMany({ where: { userId, commentId: { in: rows.map((c) => c.id) } }, select: { commentId: true } })).map(
      (l) => l.commentId,
    ),
  );
  return rows.map((c) => ({
    id: c.id,
    body: c.body,
    likeCount: c.likeCount,
    createdAt: c.createdAt,
    user: c.user,
    liked: liked.has(c.id),
  }));
}

/** A trailing "." is usually punctuation ("thanks @ana."), so both forms are candidates; the exact one wins. */
export function mentionedUsernames(body: string): string[][] {
  const tokens = [...body.matchAll(/(?<![A-Za-z0-9_.-])@([A-Za-z0-9_.-]{2,32})/g)].map((m) => m[1].toLowerCase());
  const unique = [...new Set(tokens)].slice(0, MAX_MENTIONS);
  return unique.map((t) => {
    const trimmed = t.replace(/\.+$/, "");
    return trimmed !== t && trimmed.length >= 2 ? [t, trimmed] : [t];
  });
}

async function mentionRecipients(body: string, post: PostRecord, authorId: string): Promise<string[]> {
  const candidates = mentionedUsernames(body);
  if (!candidates.length) return [];
  const users = await db().user.findMany({
    where: { username: { in: candidates.flat() }, suspended: false },
    select: { id: true, username: true },
  });
  const byName = new Map(users.map((u) => [u.username, u.id]));
  const ids = new Set<string>();
  for (const forms of candidates) {
    const id = forms.map((f) => byName.get(f)).find((x) => x !== undefined);
    if (id && id !== authorId && id !== post.userId) ids.add(id);
  }
  // A mention must not point anyone at a post they cannot open.
  const readable = (id: string) =>
    !post.moderated && !post.draft && (post.privacy !== "private" || post.access.some((a) => a.userId === id));
  return [...ids].filter(readable);
}

export async function createComment(userId: string, code: string, body: string): Promise<CommentItem> {
  const post = await postToEngage(code, userId);
  const text = body.trim();
  const mentioned = await mentionRecipients(text, post, userId);
  try {
    const { item, commentCount } = await db().$transaction(async (tx) => {
      const comment = await tx.comment.create({ data: { postId: post.id, userId, body: text }, include: { user: true } });
      const counts = await tx.post.update({ where: { id: post.id }, data: { commentCount: { increment: 1 } }, select: scoreSelect });
      await refreshDiscoverScore(tx, counts);
      if (post.userId)
        await notify(tx, { kind: "comment", recipientId: post.userId, actorId: userId, postId: post.id, commentId: comment.id });
      for (const recipientId of mentioned) {
        await notify(tx, { kind: "mention", recipientId, actorId: userId, postId: post.id, commentId: comment.id });
      }
      const item: CommentItem = {
        id: comment.id,
        body: comment.body,
        likeCount: 0,
        createdAt: comment.createdAt,
        user: comment.user,
        liked: false,
      };
      return { item, commentCount: counts.commentCount };
    });
    emitPostEvent({
      type: "commented",
      post: { ...post, commentCount },
      comment: { id: item.id, body: item.body, createdAt: item.createdAt, author: item.user },
    });
    return item;
  } catch (error) {
    // The post was deleted between the checks and the insert.
    if (isForeignKeyViolation(error)) throw new DomainError("not_found", "No such post.");
    throw error;
  }
}

/** The comment's author or the post's owner; anyone else gets 403 when they can see the post, else what reading it gives them. */
export async function deleteComment(userId: string, commentId: string): Promise<void> {
  const comment = await findComment(commentId);
  if (comment.userId !== userId && comment.post.userId !== userId) {
    await readPost(comment.post.code, { userId, teamId: null });
    // A comment hidden from the caller (suspended author, a block) is not theirs to see.
    if (comment.user.suspended || (await blockBetween(db(), userId, comment.userId))) throw commentNotFound();
    throw new DomainError("forbidden", "Only the comment's author or the post's owner can delete it.");
  }
  const deleted = await db().$transaction(async (tx) => {
    const { count } = await tx.comment.deleteMany({ where: { id: commentId } });
    if (!count) return false;
    const counts = await tx.post.update({ where: { id: comment.postId }, data: { commentCount: { decrement: 1 } }, select: scoreSelect });
    await refreshDiscoverScore(tx, counts);
    return true;
  });
  if (!deleted) throw commentNotFound();
}
