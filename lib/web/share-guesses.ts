/**
 * Share-page password tries (docs/share-passwords.md): per post and address (IPv6 per /64, so a
 * host cannot walk its prefix), and wrong ones per post from all addresses (issue 27: botnets).
 * The owner is not counted: strangers must not lock them out.
 */
import { addressSubject } from "@/lib/auth/attempts";
import { counterStore } from "@/lib/ratelimit";

export const SHARE_PASSWORD_ATTEMPTS = { max: 10, windowSeconds: 600 } as const;

export const SHARE_PASSWORD_POST_LIMIT = { max: 100, windowSeconds: 3600 } as const;

export type ShareGuess =
  /** `limited`: this address has tried too often; `later`: the post has had too many wrong passwords. */
  { allowed: false; reason: "limited" | "later" } | { allowed: true; settle(right: boolean): Promise<void> };

/** `scope` "guest": a folder's guest upload page (docs/guest-uploads.md), counted apart. */
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
