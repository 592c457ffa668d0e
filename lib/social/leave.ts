/**
 * What a deleted account leaves on other people's things (docs/account-deletion.md), each
 * removal in its own transaction moving its counter only when a row really went, so a second
 * run (the recovery sweep resuming) moves nothing.
 */
import { db } from "@/lib/db/client";
import { endFollow } from "./follows";
import { forgetActor, retractNotification } from "./notifications";
import { refreshDiscoverScore, scoreSelect } from "./score";

export interface SocialTraces {
  likes: number;
  comments: number;
  commentLikes: number;
  follows: number;
}

export async function removeSocialTraces(userId: string): Promise<SocialTraces> {
  const traces: SocialTraces = { likes: 0, comments: 0, commentLikes: 0, follows: 0 };
  const likes = await db().like.findMany({ where: { userId }, select: { postId: true, post: { select: { userId: true } } } });
  for (const like of likes) {
    const removed = await db().$transaction(async (tx) => {
      const { count } = await tx.like.deleteMany({ where: { postId: like.postId, userId } });
      if (!count) return false;
      const counts = await tx.post.update({ where: { id: like.postId }, data: { likeCount: { decrement: 1 } }, select: scoreSelect });
      await refreshDiscoverScore(tx, counts);
      const owner = like.post.userId;
      if (owner) await retractNotification(tx, { kind: "like", recipientId: owner, actorId: userId, postId: like.postId });
      return true;
    });
    if (removed) traces.likes++;
  }
  const commentLikes = await db().commentLike.findMany({ where: { userId }, select: { commentId: true } });
  for (const { commentId } of commentLikes) {
    const removed = await db().$transaction(async (tx) => {
      const { count } = await tx.commentLike.deleteMany({ where: { commentId, userId } });
      if (!count) return false;
      await tx.comment.updateMany({ where: { id: commentId }, data: { likeCount: { decrement: 1 } } });
      return true;
    });
    if (removed) traces.commentLikes++;
  }
  // Comments last among the post counters: the likes others gave them go with them.
  const comments = await db().comment.findMany({ where: { userId }, select: { id: true, postId: true } });
  for (const comment of comments) {
    const removed = await db().$transaction(async (tx) => {
      const { count } = await tx.comment.deleteMany({ where: { id: comment.id } });
      if (!count) return false;
      const counts = await tx.post.update({ where: { id: comment.postId }, data: { commentCount: { decrement: 1 } }, select: scoreSelect });
      await refreshDiscoverScore(tx, counts);
      return true;
    });
    if (removed) traces.comments++;
  }
  const follows = await db().follow.findMany({
    where: { OR: [{ followerId: userId }, { followingId: userId }] },
    select: { followerId: true, followingId: true },
  });
  for (const follow of follows) {
    if (await db().$transaction((tx) => endFollow(tx, follow.followerId, follow.followingId))) traces.follows++;
  }
  // Entries of other events it acted in (a comment's notification, a mention) lose it too.
  await forgetActor(userId);
  return traces;
}
