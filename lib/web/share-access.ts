/**
 * The web's own check for a password-protected post (docs/share-passwords.md): the share
 * page's like, comment and report actions act on such a post only for its owner or for a
 * visitor holding the post's unlock cookie. Elsewhere the post is as if private: 404.
 */
import { cookies } from "next/headers";
import { notFound as postNotFound, readPost } from "@/lib/posts/read";
import { unlockCookieName, verifyUnlockToken } from "./share-unlock";

export async function requireShareUnlocked(code: string, userId: string): Promise<void> {
  const { post, owner } = await readPost(code, { userId, teamId: null });
  if (owner || post.passwordHash === null) return;
  const token = (await cookies()).get(unlockCookieName(code))?.value;
  if (!verifyUnlockToken(code, post.passwordHash, token)) throw postNotFound();
}
