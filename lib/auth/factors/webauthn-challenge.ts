/**
 * WebAuthn challenges without a table (docs/passkeys.md): a challenge is the signed text
 * `purpose.user.expiry.nonce.mac` (HMAC under a key derived from the signing secret), so
 * any instance can check it; the nonce is then marked used in the counter store (memory,
 * or Redis shared by every instance), so a challenge signs in at most once. Two minutes to
 * answer, as the browser's own ceremony timeout.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { signingSecret } from "@/lib/crypto/signing";
import { counterStore } from "@/lib/ratelimit";

export type ChallengePurpose = "register" | "authenticate";
export const CHALLENGE_TTL_SECONDS = 120;

const mac = (payload: string): string =>
  createHmac("sha256", createHmac("sha256", signingSecret()).update("mediahost-webauthn-v1").digest()).update(payload).digest("base64url");

/** A new challenge, as the UTF-8 text the options carry (base64url-encoded by the library). */
export function issueChallenge(purpose: ChallengePurpose, userId: string | null, nowMs: number = Date.now()): string {
  const payload = [purpose, userId ?? "-", Math.floor(nowMs / 1000) + CHALLENGE_TTL_SECONDS, randomBytes(16).toString("base64url")].join(
    ".",
  );
  return `${payload}.${mac(payload)}`;
}

/**
 * Whether `encoded` (the challenge as the client data carries it: base64url of the text) is
 * one we issued for this purpose and user, unexpired and not used before. Uses it up.
 */
export async function redeemChallenge(
  encoded: string,
  purpose: ChallengePurpose,
  userId: string | null,
  nowMs: number = Date.now(),
): Promise<boolean> {
  const text = Buffer.from(encoded, "base64url").toString("utf8");
  const parts = text.split(".");
  if (parts.length !== 5) return false;
  const [gotPurpose, gotUser, expiry, nonce, signature] = parts;
  const expected = Buffer.from(mac(parts.slice(0, 4).join(".")));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
  if (gotPurpose !== purpose || gotUser !== (userId ?? "-")) return false;
  if (!/^\d+$/.test(expiry) || Number(expiry) * 1000 < nowMs) return false;
  const uses = await counterStore().increment(`webauthn_challenge:${nonce}`, CHALLENGE_TTL_SECONDS + 60);
  return uses === 1;
}
