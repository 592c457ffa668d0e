/**
 * Webhook signatures (docs/webhooks.md, "Headers and verifying"): `webhook-signature: v1=<hex>` where
 * hex is HMAC-SHA256 with the webhook's secret over `${webhook-timestamp}.${body}`.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const SIGNATURE_VERSION = "v1";

/** A new secret: `whsec_` and 32 random bytes in base64url. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString("base64url")}`;

export function signPayload(secret: string, timestamp: number, body: string): string {
  return `${SIGNATURE_VERSION}=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/** The receiver's check (also the docs' example): constant-time compare, timestamp within `toleranceS`. */
export function verifySignature(
  secret: string,
  header: string,
  timestamp: string,
  body: string,
  toleranceS = 300,
  nowS = Date.now() / 1000,
): boolean {
  const ts = Number(timestamp);
  if (!Number.isInteger(ts) || Math.abs(nowS - ts) > toleranceS) return false;
  const expected = Buffer.from(signPayload(secret, ts, body));
  return header.split(" ").some((candidate) => {
    const given = Buffer.from(candidate.trim());
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
