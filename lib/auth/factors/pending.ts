/**
 * The ticket between the two steps of a web sign-in (docs/two-factor.md): an HMAC saying "this
 * password was right less than 5 minutes ago". Stateless on purpose: the per-account limit on
 * codes, which the ticket cannot reset, is what stops guessing.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { signingSecret } from "@/lib/crypto/signing";

export const PENDING_TTL_SECONDS = 5 * 60;

const mac = (payload: string): Buffer =>
  createHmac("sha256", createHmac("sha256", signingSecret()).update("mediahost-2fa-pending-v1").digest()).update(payload).digest();

export function issuePendingTicket(userId: string, nowMs: number = Date.now()): string {
  const payload = `${userId}.${Math.floor(nowMs / 1000) + PENDING_TTL_SECONDS}`;
  return `${payload}.${mac(payload).toString("base64url")}`;
}

export function redeemPendingTicket(ticket: string, nowMs: number = Date.now()): string | null {
  const parts = ticket.split(".");
  if (parts.length !== 3) return null;
  const [userId, expiry, signature] = parts;
  const expected = mac(`${userId}.${expiry}`);
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  if (!/^\d+$/.test(expiry) || Number(expiry) * 1000 < nowMs) return null;
  return userId;
}
