/** The share page's actions on a password-protected post: its owner or an unlock holder only (docs/share-passwords.md). */
import { cookies } from "next/headers";
import { notFound as postNotFound, readPost } from "@/lib/posts/read";
import { unlockCookieName, verifyUnlockToken } from "./share-unlock";

export async function requireShareUnlocked(code: string, userId: string): Promise<void> {
  const { post, owner } = await readPost(code, { userId, teamId: null });
  if (owner || post.passwordHash === null) return;
  const token = (await cookies()).get(unlockCookieName(code))?.value;
  if (!verifyUnlockToken(code, post.passwordHash, token)) throw postNotFound();
}
