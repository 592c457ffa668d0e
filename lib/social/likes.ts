/**
 * Likes of posts and comments, safe to repeat (docs/relay-social.md). The primary key admits
 * one row per user and the counter moves in the row's transaction only when a row really was
 * inserted or deleted. The insert comes first so that, on SQLite, the transaction starts with a write.
 */
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { isForeignKeyViolation, isUniqueViolation } from "@/lib/prisma-support";
import { notify, retractNotification } from "./notifications";
import { postToDisengage, postToEngage } from "./relations";
import { refreshDiscoverScore, scoreSelect } from "./score";
import { commentToDisengage, commentToEngage } from "./comments";

export interface LikeState {
  liked: boolean;
  likeCount: number;
}

async function postLikeCount(postId: string): Promise<number> {
  const post = await db().post.findUnique({ where: { id: postId }, select: { likeCount: true } });
  return post?.likeCount ?? 0;
}

async function commentLikeCount(commentId: string): Promise<number> {
  const comment = await db().comment.findUnique({ where: { id: commentId }, select: { likeCount: true } });
  return comment?.likeCount ?? 0;
}

export async function likePost(userId: string, code: string): Promise<LikeState> {
  const post = await postToEngage(code, userId);
  try {
    return await db().$transaction(async (tx) => {
      await tx.like.create({ data: { postId: post.id, userId }, select: { postId: true } });
      const counts = await tx.post.update({ where: { id: post.id }, data: { likeCount: { increment: 1 } }, select: scoreSelect });
      await refreshDiscoverScore(tx, counts);
      if (post.userId) await notify(tx, { kind: "like", recipientId: post.userId, actorId: userId, postId: post.id });
      return { liked: true, likeCount: counts.likeCount };
    });
  } catch (error) {
    if (isForeignKeyViolation(error)) throw new DomainError("not_found", "No such post.");
    if (!isUniqueViolation(error)) throw error;
    return { liked: true, likeCount: await postLikeCount(post.id) };
  }
}

export async function unlikePost(userId: string, code: string): Promise<LikeState> {
  const post = await postToDisengage(code, userId);
  return db().$transaction(async (tx) => {
    const { count } = await tx.like.deleteMany({ where: { postId: post.id, userId } });
    if (!count) {
      const current = await tx.post.findUnique({ where: { id: post.id }, select: { likeCount: true } });
      return { liked: false, likeCount: current?.likeCount ?? 0 };
    }
    const counts = await tx.post.update({ where: { id: post.id }, data: { likeCount: { decrement: 1 } }, select: scoreSelect });
    await refreshDiscoverScore(tx, counts);
    if (post.userId) await retractNotification(tx, { kind: "like", recipientId: post.userId, actorId: userId, postId: post.id });
    return { liked: false, likeCount: counts.likeCount };
  });
}

/** Refused across a block with the comment's or the post's author. */
export async function likeComment(userId: string, commentId: string): Promise<LikeState> {
  const comment = await commentToEngage(commentId, userId);
  try {
    return await db().$transaction(async (tx) => {
      await tx.commentLike.create({ data: { commentId, userId }, select: { commentId: true } });
      const updated = await tx.comment.update({
        where: { id: commentId },
        data: { likeCount: { increment: 1 } },
        select: { likeCount: true },
      });
      await notify(tx, { kind: "comment_like", recipientId: comment.userId, actorId: userId, postId: comment.postId, commentId });
      return { liked: true, likeCount: updated.likeCount };
    });
  } catch (error) {
    // Deleted between the checks and the insert.
    if (isForeignKeyViolation(error)) throw new DomainError("not_found", "No such comment.");
    if (!isUniqueViolation(error)) throw error;
    return { liked: true, likeCount: await commentLikeCount(commentId) };
  }
}

export async function unlikeComment(userId: string, commentId: string): Promise<LikeState> {
  const comment = await commentToDisengage(commentId, userId);
  return db().$transaction(async (tx) => {
    const { count } = await tx.commentLike.deleteMany({ where: { commentId, userId } });
    if (!count) {
      const current = await tx.comment.findUnique({ where: { id: commentId }, select: { likeCount: true } });
      if (!current) throw new DomainError("not_found", "No such comment.");
      return { liked: false, likeCount: current.likeCount };
    }
    const updated = await tx.comment.update({
      where: { id: commentId },
      data: { likeCount: { decrement: 1 } },
      select: { likeCount: true },
    });
    await retractNotification(tx, {
      kind: "comment_like",
      recipientId: comment.userId,
      actorId: userId,
      postId: comment.postId,
      commentId,
    });
    return { liked: false, likeCount: updated.likeCount };
  });
}
