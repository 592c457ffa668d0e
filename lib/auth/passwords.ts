/**
 * Changing a password and resetting a forgotten one (docs/web-auth.md, "Passwords"). A reset
 * token is 32 random bytes of which only the SHA-256 is stored (a database dump gives no usable
 * link), used up by a conditional update; requests by email answer the same whether or not
 * the account exists.
 */
import { createHash, randomBytes } from "node:crypto";
import { env } from "@/lib/config/env";
import { hashPassword, verifyPassword } from "@/lib/crypto/password";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { counterStore } from "@/lib/ratelimit";
import { checkPassword as checkPasswordRules } from "@/lib/users/accounts";
import { addressSubject, beginSecondFactorAttempt } from "./attempts";
import { requiresSecondFactor, verifyConfirmingCode } from "./factors/two-factor";
import { mailConfigured, sendMailLater } from "./mail";
import { afterPasswordChange } from "./password-notice";

export const RESET_TTL_MS = 30 * 60 * 1000;
/** More are dropped silently: the answer must not change. */
export const RESET_ACCOUNT_LIMIT = 3;
export const RESET_ADDRESS_LIMIT = 10;
const RESET_WINDOW_SECONDS = 3600;

const sha256 = (token: string): string => createHash("sha256").update(token).digest("hex");

export interface PasswordChange {
  password?: string;
  /** Accounts without a password. */
  code?: string;
  newPassword: string;
}

/** Answers how many other sessions were signed out. */
export async function changePassword(userId: string, currentSessionId: string | null, change: PasswordChange, ip: string): Promise<number> {
  checkPasswordRules(change.newPassword);
  const user = await db().user.findUniqueOrThrow({ where: { id: userId }, select: { passwordHash: true } });
  if (user.passwordHash) {
    if (!change.password) throw new DomainError("invalid_request", "Enter your current password.");
    // Counted like a wrong code: a stolen session must not guess the password endlessly.
    const attempt = await beginSecondFactorAttempt(userId, ip);
    if (!(await verifyPassword(change.password, user.passwordHash))) throw new DomainError("unauthorized", "Wrong password.");
    await attempt.succeeded();
  } else {
    if (!(await requiresSecondFactor(userId))) {
      throw new DomainError(
        "forbidden",
        "This account has no password and no second factor to confirm with: turn on two-factor sign-in first, or ask an administrator for a reset link.",
      );
    }
    if (!change.code) throw new DomainError("invalid_request", "Enter a code from your authenticator app or a recovery code.");
    await verifyConfirmingCode(userId, change.code, ip);
  }
  const passwordHash = await hashPassword(change.newPassword);
  const keep = currentSessionId ? { id: { not: currentSessionId } } : {};
  const [, ended] = await db().$transaction([
    db().user.update({ where: { id: userId }, data: { passwordHash } }),
    db().relaySession.deleteMany({ where: { userId, ...keep } }),
    db().passwordReset.deleteMany({ where: { userId } }),
    // The password was just given: this session counts as confirmed (lib/auth/confirmation.ts).
    db().relaySession.updateMany({ where: { id: currentSessionId ?? "", userId }, data: { confirmedAt: new Date() } }),
  ]);
  await afterPasswordChange(userId, "changed");
  return ended.count;
}

export const resetLink = (token: string): string => `${env().PUBLIC_URL}/reset-password?token=${encodeURIComponent(token)}`;

/** `issuedBy`: the administrator's id, null for a mail. */
export async function issueResetLink(userId: string, issuedBy: string | null): Promise<{ url: string; expiresAt: Date }> {
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(Date.now() + RESET_TTL_MS);
  await db().passwordReset.create({ data: { userId, tokenHash: sha256(token), expiresAt, issuedBy } });
  return { url: resetLink(token), expiresAt };
}

/** Sends a reset link when there is an address and mail; rate_limited only for the address's count, taken before the look-up. */
export async function requestPasswordReset(login: string, ip: string): Promise<void> {
  if (!mailConfigured()) throw new DomainError("unavailable", "Password mail is not set up here; ask the site's administrator.");
  const store = counterStore();
  const address = await store.hit(`reset:ip:${addressSubject(ip)}`, RESET_ADDRESS_LIMIT, RESET_WINDOW_SECONDS);
  if (!address.allowed) {
    throw new DomainError("rate_limited", `Too many requests; retry in ${address.retryAfter} s.`, undefined, undefined, address.retryAfter);
  }
  const value = login.trim().toLowerCase();
  if (!value || value.length > 254) return;
  const user = await db().user.findUnique({
    where: value.includes("@") ? { email: value } : { username: value },
    select: { id: true, email: true, displayUsername: true, suspended: true },
  });
  // No link for a suspended account (issue 39 §4), with the same answer, so suspension cannot be probed.
  if (!user?.email || user.suspended) return;
  const account = await store.hit(`reset:account:${user.id}`, RESET_ACCOUNT_LIMIT, RESET_WINDOW_SECONDS);
  if (!account.allowed) return;
  const { url } = await issueResetLink(user.id, null);
  sendMailLater({
    to: user.email,
    subject: "Reset your password",
    text: [
      `Someone (hopefully you) asked to reset the password of ${user.displayUsername} at ${env().PUBLIC_URL}.`,
      "",
      `Choose a new password here (the link works once, for 30 minutes):`,
      url,
      "",
      "If it was not you, ignore this mail: your password stays as it is.",
    ].join("\n"),
  });
}

async function liveReset(token: string): Promise<{ id: string; userId: string } | null> {
  if (!token || token.length > 100) return null;
  const row = await db().passwordReset.findUnique({
    where: { tokenHash: sha256(token) },
    select: { id: true, userId: true, usedAt: true, expiresAt: true },
  });
  if (!row || row.usedAt || row.expiresAt.getTime() <= Date.now()) return null;
  return row;
}

export async function resetTokenUsable(token: string): Promise<boolean> {
  return (await liveReset(token)) !== null;
}

const BAD_LINK = "This reset link is not valid any more; ask for a new one.";

/** The link is used up and every session of the account ends. */
export async function resetPassword(token: string, newPassword: string): Promise<void> {
  checkPasswordRules(newPassword);
  const reset = await liveReset(token);
  if (!reset) throw new DomainError("unauthorized", BAD_LINK);
  const passwordHash = await hashPassword(newPassword);
  const used = await db().passwordReset.updateMany({
    where: { id: reset.id, usedAt: null, expiresAt: { gt: new Date() } },
    data: { usedAt: new Date() },
  });
  if (used.count === 0) throw new DomainError("unauthorized", BAD_LINK);
  await db().$transaction([
    db().user.update({ where: { id: reset.userId }, data: { passwordHash } }),
    db().relaySession.deleteMany({ where: { userId: reset.userId } }),
    db().passwordReset.deleteMany({ where: { userId: reset.userId, id: { not: reset.id } } }),
  ]);
  await afterPasswordChange(reset.userId, "reset");
}
