/**
 * Likes of posts and of comments. POST turns a like on, DELETE turns it off; both are
 * safe to repeat and answer the state after the call.
 *
 * Exact counts: the Like (CommentLike) primary key (item, user) admits one row per user,
 * and the counter moves in the same transaction as the row, by an atomic increment, only
 * when the row was really inserted or deleted. A repeated like fails on the key, which
 * rolls its transaction (increment included) back; it then answers the current state.
 * The insert comes first so that, on SQLite, the transaction starts with a write.
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

/** POST /posts/{code}/like */
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

/** DELETE /posts/{code}/like */
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

/** POST /comments/{id}/like: refused across a block with the comment's or the post's author. */
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

/** DELETE /comments/{id}/like */
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
