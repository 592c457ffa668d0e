/**
 * Keeps PostWord.publicGif (public post, first file a GIF) in step with its post, so the
 * GIF search reads word rows of candidate posts only. It is a superset of what GET /gifs
 * lists: moderation, restriction, drafts and suspensions change often enough and rarely
 * enough to be checked on Post and User instead, so a stale `true` only costs a wasted
 * candidate, never a wrong answer. A stale `false` would hide a post: call this in the
 * transaction of every write that rewrites a post's words or changes its privacy or first
 * file (lib/posts/edit.ts, lib/posts/remove.ts).
 */
import type { Tx } from "@/lib/db/client";

export async function syncGifWords(tx: Pick<Tx, "post" | "postWord">, postId: string): Promise<void> {
  const post = await tx.post.findUnique({ where: { id: postId }, select: { privacy: true, firstFileGif: true } });
  if (!post) return;
  const publicGif = post.privacy === "public" && post.firstFileGif;
  await tx.postWord.updateMany({ where: { postId, publicGif: !publicGif }, data: { publicGif } });
}
