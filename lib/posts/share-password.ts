/**
 * Share-page passwords (docs/share-passwords.md): set and cleared by the post's owner on
 * the web, checked on the share page. Stored as an scrypt hash (lib/crypto/password.ts),
 * never the password itself.
 */
import { hashPassword, verifyPassword } from "@/lib/crypto/password";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { forgetDeliverable } from "./delivery-cache";
import { notFound, postForChange, readPost, type Viewer } from "./read";

/**
 * New passwords only (issue 27, from 4): long enough to resist guessing behind the attempt
 * limits, short enough to type. Passwords set before keep working: only setting checks it.
 */
export const SHARE_PASSWORD_MIN = 8;
export const SHARE_PASSWORD_MAX = 200;

/** Sets (a string) or removes (null) the password of the owner's post. */
export async function setSharePassword(code: string, userId: string, password: string | null): Promise<void> {
  const post = await postForChange(code, { userId, teamId: null });
  if (post.teamId) throw new DomainError("invalid_request", "Team posts are private already; they take no share-page password.");
  let passwordHash: string | null = null;
  if (password !== null) {
    const length = [...password].length;
    if (length < SHARE_PASSWORD_MIN || length > SHARE_PASSWORD_MAX) {
      throw new DomainError("invalid_request", `The password must be ${SHARE_PASSWORD_MIN} to ${SHARE_PASSWORD_MAX} characters.`);
    }
    passwordHash = await hashPassword(password);
  }
  await db().post.update({ where: { id: post.id }, data: { passwordHash } });
  // Its files are signed-only from now on (or no longer): /cdn must not answer from the old entry.
  forgetDeliverable({ code });
}

/** True when `password` opens the post's share page. */
export function checkSharePassword(post: { passwordHash: string | null }, password: string): Promise<boolean> {
  if (post.passwordHash === null) return Promise.resolve(true);
  return verifyPassword(password, post.passwordHash);
}

/**
 * For the API and Relay, which know no share-page password: a password-protected post is
 * 404 to anyone but its owner, as if private (docs/share-passwords.md). Run before a post
 * endpoint that would otherwise show or touch it (likes, comments, reports).
 */
export async function refuseIfPasswordLocked(code: string, viewer: Viewer): Promise<void> {
  const { post, owner } = await readPost(code, viewer);
  if (!owner && post.passwordHash !== null) throw notFound();
}
