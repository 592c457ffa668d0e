/**
 * WebAuthn challenges without a table (docs/passkeys.md): signed text any instance can check,
 * its nonce then marked used in the counter store so a challenge signs in at most once.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { signingSecret } from "@/lib/crypto/signing";
import { counterStore } from "@/lib/ratelimit";

export type ChallengePurpose = "register" | "authenticate";
export const CHALLENGE_TTL_SECONDS = 120;

const mac = (payload: string): string =>
  createHmac("sha256", createHmac("sha256", signingSecret()).update("mediahost-webauthn-v1").digest()).update(payload).digest("base64url");

export function issueChallenge(purpose: ChallengePurpose, userId: string | null, nowMs: number = Date.now()): string {
  const payload = [purpose, userId ?? "-", Math.floor(nowMs / 1000) + CHALLENGE_TTL_SECONDS, randomBytes(16).toString("base64url")].join(
    ".",
  );
  return `${payload}.${mac(payload)}`;
}

/** One we issued for this purpose and user, unexpired and unused; uses it up. */
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
