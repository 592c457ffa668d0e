/** Share-page passwords (docs/share-passwords.md), stored as an scrypt hash only. */
import { hashPassword, verifyPassword } from "@/lib/crypto/password";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { forgetDeliverable } from "./delivery-cache";
import { notFound, postForChange, readPost, type Viewer } from "./read";

/** New passwords only (issue 27): passwords set before keep working. */
export const SHARE_PASSWORD_MIN = 8;
export const SHARE_PASSWORD_MAX = 200;

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

export function checkSharePassword(post: { passwordHash: string | null }, password: string): Promise<boolean> {
  if (post.passwordHash === null) return Promise.resolve(true);
  return verifyPassword(password, post.passwordHash);
}

/** A password-protected post is 404 to anyone but its owner on the API and Relay (docs/share-passwords.md). */
export async function refuseIfPasswordLocked(code: string, viewer: Viewer): Promise<void> {
  const { post, owner } = await readPost(code, viewer);
  if (!owner && post.passwordHash !== null) throw notFound();
}
