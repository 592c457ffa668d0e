/**
 * The discover rank: score = log10(1 + likes + 2 × comments) + createdAt / 1 day. The age
 * term is the creation time, not "now", so a score only changes with its counts and can be
 * indexed. Views are left out: anyone can make them, while a like costs an account.
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

export const scoreSelect = { id: true, likeCount: true, commentCount: true, createdAt: true } as const;

export function discoverScore(post: ScoreInput): number {
  const engagement = Math.max(0, post.likeCount) + COMMENT_WEIGHT * Math.max(0, post.commentCount);
  return Math.log10(1 + engagement) + post.createdAt.getTime() / 1000 / SECONDS_PER_UNIT;
}

/** In the count change's transaction: the update's row lock orders concurrent changes, so the last score is from the last counts. */
export async function refreshDiscoverScore(tx: Pick<Tx, "post">, post: ScoreInput & { id: string }): Promise<void> {
  await tx.post.update({ where: { id: post.id }, data: { discoverScore: discoverScore(post) }, select: { id: true } });
}
