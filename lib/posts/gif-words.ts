/**
 * Keeps PostWord.publicGif in step with its post: a superset of what GET /gifs lists, so a stale
 * `true` costs a wasted candidate but a stale `false` would hide a post. Call it in the transaction
 * of every write that changes a post's words, privacy or first file.
 */
import type { Tx } from "@/lib/db/client";

export async function syncGifWords(tx: Pick<Tx, "post" | "postWord">, postId: string): Promise<void> {
  const post = await tx.post.findUnique({ where: { id: postId }, select: { privacy: true, firstFileGif: true } });
  if (!post) return;
  const publicGif = post.privacy === "public" && post.firstFileGif;
  await tx.postWord.updateMany({ where: { postId, publicGif: !publicGif }, data: { publicGif } });
}
