/**
 * How many share-page passwords may be tried (docs/share-passwords.md), counted in the
 * shared counter store (Redis with REDIS_URL) before any password is checked:
 * - per post and client address: SHARE_PASSWORD_ATTEMPTS, every try counted (right or
 *   wrong), IPv6 addresses grouped by /64 as the sign-in limits do (`addressSubject`), so a
 *   host cannot reset its count by walking its own prefix;
 * - per post from every address together: SHARE_PASSWORD_POST_LIMIT wrong passwords per
 *   hour (issue 27: a botnet spread over many addresses had no limit at all). A try takes its
 *   place before the check and a right password gives it back, so what stays counted is
 *   exactly the wrong ones. The post's owner is not counted here: strangers guessing must not
 *   lock the owner out of their own post.
 */
import { addressSubject } from "@/lib/auth/attempts";
import { counterStore } from "@/lib/ratelimit";

/** Password tries per client address (IPv6: per /64) and post per window. */
export const SHARE_PASSWORD_ATTEMPTS = { max: 10, windowSeconds: 600 } as const;

/** Wrong passwords per post per hour, from all addresses together. */
export const SHARE_PASSWORD_POST_LIMIT = { max: 100, windowSeconds: 3600 } as const;

export type ShareGuess =
  /** `limited`: this address has tried too often; `later`: the post has had too many wrong passwords. */
  { allowed: false; reason: "limited" | "later" } | { allowed: true; settle(right: boolean): Promise<void> };

/**
 * Counts one password try on `code` from `ip`; `owner` when the signed-in viewer owns the post.
 * `scope` "guest": a folder's guest upload page (docs/guest-uploads.md), counted apart with the same limits.
 */
export async function beginShareGuess(code: string, ip: string, owner: boolean, scope: "share" | "guest" = "share"): Promise<ShareGuess> {
  const store = counterStore();
  const tries = await store.increment(`${scope}_password:${code}:${addressSubject(ip)}`, SHARE_PASSWORD_ATTEMPTS.windowSeconds);
  if (tries > SHARE_PASSWORD_ATTEMPTS.max) return { allowed: false, reason: "limited" };
  if (owner) return { allowed: true, settle: async () => {} };
  const postKey = `${scope}_password_post:${code}`;
  const { max, windowSeconds } = SHARE_PASSWORD_POST_LIMIT;
  const total = await store.hit(postKey, max, windowSeconds);
  if (!total.allowed) return { allowed: false, reason: "later" };
  return { allowed: true, settle: async (right) => (right ? store.release(postKey, windowSeconds) : undefined) };
}
