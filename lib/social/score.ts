/**
 * The discover rank, a "hot" score in the manner of Reddit's:
 *
 *   score = log10(1 + likes + 2 × comments) + createdAt / 1 day
 *
 * Age enters linearly and engagement logarithmically: a post needs ten times the
 * engagement of one a day newer to rank level with it, so fresh posts keep arriving while
 * popular ones hold on for a few days. Because the age term is the creation time, not
 * "now", a post's score only changes when its counts do; it can be stored and indexed
 * (Post.discoverScore) and the index order stays right as time passes.
 *
 * Views are left out on purpose: anyone can produce 3 per IP per hour, while a like or a
 * comment costs an account and is limited per account.
 */
import type { Tx } from "@/lib/db/client";

/** Seconds of age worth one unit of score (a tenfold engagement). */
export const SECONDS_PER_UNIT = 86_400;
/** A comment weighs two likes: it takes more effort and starts a conversation. */
export const COMMENT_WEIGHT = 2;

export interface ScoreInput {
  likeCount: number;
  commentCount: number;
  createdAt: Date;
}

/** The fields `refreshDiscoverScore` needs, for the `select` of the count update. */
export const scoreSelect = { id: true, likeCount: true, commentCount: true, createdAt: true } as const;

export function discoverScore(post: ScoreInput): number {
  const engagement = Math.max(0, post.likeCount) + COMMENT_WEIGHT * Math.max(0, post.commentCount);
  return Math.log10(1 + engagement) + post.createdAt.getTime() / 1000 / SECONDS_PER_UNIT;
}

/**
 * Stores the score of a post whose like or comment count just changed. Call it in the
 * transaction of that change, with the row the count update returned: the update's row
 * lock orders concurrent changes, so the last score written is from the last counts.
 */
export async function refreshDiscoverScore(tx: Pick<Tx, "post">, post: ScoreInput & { id: string }): Promise<void> {
  await tx.post.update({ where: { id: post.id }, data: { discoverScore: discoverScore(post) }, select: { id: true } });
}
