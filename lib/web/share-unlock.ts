/**
 * The cookie a correct share-page password earns (docs/share-passwords.md): HMAC-signed and bound
 * to a fingerprint of the password's hash, so changing the password ends every unlock.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { nowSeconds, signingSecret } from "@/lib/crypto/signing";

export const UNLOCK_TTL_SECONDS = 3600;

export const unlockCookieName = (code: string): string => `mh_unlock_${code}`;
/** The cookie of a folder's guest upload page (the folder's code). */
export const guestUnlockCookieName = (code: string): string => `mh_guest_${code}`;

const fingerprint = (passwordHash: string): string => createHash("sha256").update(passwordHash).digest("base64url").slice(0, 16);

/** What an unlock opens: a share page, or a folder's guest upload page (docs/guest-uploads.md); a token of one never opens the other. */
export type UnlockPurpose = "share-unlock" | "guest-upload";

function mac(code: string, exp: number, passwordHash: string, purpose: UnlockPurpose): string {
  return createHmac("sha256", signingSecret())
    .update(`${purpose}\n${code}\n${exp}\n${fingerprint(passwordHash)}`)
    .digest("base64url");
}

export function unlockToken(
  code: string,
  passwordHash: string,
  now: number = nowSeconds(),
  purpose: UnlockPurpose = "share-unlock",
): string {
  const exp = now + UNLOCK_TTL_SECONDS;
  return `${exp}.${mac(code, exp, passwordHash, purpose)}`;
}

export function verifyUnlockToken(
  code: string,
  passwordHash: string,
  token: string | null | undefined,
  now: number = nowSeconds(),
  purpose: UnlockPurpose = "share-unlock",
): boolean {
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token ?? "");
  if (!match) return false;
  const exp = Number(match[1]);
  if (exp <= now) return false;
  const expected = Buffer.from(mac(code, exp, passwordHash, purpose));
  const actual = Buffer.from(match[2]);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

export function cookieFrom(header: string | null, name: string): string | null {
  for (const part of (header ?? "").split(";")) {
    const index = part.indexOf("=");
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return null;
}
