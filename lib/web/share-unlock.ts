/**
 * The cookie a correct share-page password earns (docs/share-passwords.md): one per post,
 * HMAC-signed with the service's signing secret, valid for UNLOCK_TTL_SECONDS. It names
 * the post and a fingerprint of the password's hash, so changing or removing the password
 * ends every unlock handed out before.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { nowSeconds, signingSecret } from "@/lib/crypto/signing";

export const UNLOCK_TTL_SECONDS = 3600;

export const unlockCookieName = (code: string): string => `mh_unlock_${code}`;

const fingerprint = (passwordHash: string): string => createHash("sha256").update(passwordHash).digest("base64url").slice(0, 16);

function mac(code: string, exp: number, passwordHash: string): string {
  return createHmac("sha256", signingSecret())
    .update(`share-unlock\n${code}\n${exp}\n${fingerprint(passwordHash)}`)
    .digest("base64url");
}

/** The cookie value for `code`: `<exp>.<mac>`. */
export function unlockToken(code: string, passwordHash: string, now: number = nowSeconds()): string {
  const exp = now + UNLOCK_TTL_SECONDS;
  return `${exp}.${mac(code, exp, passwordHash)}`;
}

export function verifyUnlockToken(
  code: string,
  passwordHash: string,
  token: string | null | undefined,
  now: number = nowSeconds(),
): boolean {
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token ?? "");
  if (!match) return false;
  const exp = Number(match[1]);
  if (exp <= now) return false;
  const expected = Buffer.from(mac(code, exp, passwordHash));
  const actual = Buffer.from(match[2]);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
