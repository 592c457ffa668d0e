/**
 * Two-factor sign-in with an authenticator app (TOTP) and recovery codes: enrolment,
 * the second step of a sign-in, turning it off (docs/two-factor.md). Knows nothing of HTTP.
 *
 * - Enrolment: `beginTotpSetup` stores a new secret (encrypted, secret-box.ts) not yet in
 *   force; `confirmTotpSetup` with a code from the app switches it on and returns the 10
 *   recovery codes, the only time they are shown.
 * - Codes: a TOTP code is accepted once: the step it matched must be newer than the last
 *   accepted one (a conditional update, so concurrent uses of one code cannot both pass).
 *   A recovery code is used up by its first use.
 * - Every check of a code is counted by the second-factor limiter (attempts.ts).
 */
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { isUniqueViolation } from "@/lib/prisma-support";
import { beginSecondFactorAttempt } from "@/lib/auth/attempts";
import { verifyPassword } from "@/lib/crypto/password";
import { consumeRecoveryCode, recoveryCodeHash, recoveryCodesLeft, replaceRecoveryCodes } from "./recovery-codes";
import { factorSettled, unsettledFactor } from "./settling";
import { openSecret, sealSecret } from "./secret-box";
import { base32Encode, matchTotp, newTotpSecret, otpauthUri } from "./totp";

export interface TwoFactorStatus {
  totpEnabled: boolean;
  recoveryCodesLeft: number;
  passkeyCount: number;
}

export interface TotpSetup {
  /** base32, for typing into the app. */
  secret: string;
  /** otpauth://totp/...: what a QR code would hold. */
  uri: string;
}

export type SecondFactorKind = "totp" | "recovery_code";

const WRONG_CODE = "That code is not right (or was already used).";

export async function twoFactorStatus(userId: string): Promise<TwoFactorStatus> {
  const [totp, codes, passkeyCount] = await Promise.all([
    db().totpFactor.findUnique({ where: { userId }, select: { enabledAt: true } }),
    recoveryCodesLeft(userId),
    db().passkey.count({ where: { userId } }),
  ]);
  return { totpEnabled: Boolean(totp?.enabledAt), recoveryCodesLeft: totp?.enabledAt ? codes : 0, passkeyCount };
}

/** Whether a password sign-in of this user needs a second step. */
export async function requiresSecondFactor(userId: string): Promise<boolean> {
  const totp = await db().totpFactor.findUnique({ where: { userId }, select: { enabledAt: true } });
  return Boolean(totp?.enabledAt);
}

/** Whether the account has a factor besides a password to confirm with (an authenticator app or a passkey). */
export async function hasSecondFactor(userId: string): Promise<boolean> {
  const [totp, passkeys] = await Promise.all([requiresSecondFactor(userId), db().passkey.count({ where: { userId } })]);
  return totp || passkeys > 0;
}

/** The app's label: the service's host name and the account's name. */
async function accountLabel(userId: string): Promise<{ issuer: string; account: string }> {
  const user = await db().user.findUniqueOrThrow({ where: { id: userId }, select: { displayUsername: true } });
  return { issuer: new URL(env().PUBLIC_URL).host, account: user.displayUsername };
}

/** Starts (or restarts) enrolment. Refused while two-factor sign-in is on: turn it off first. */
export async function beginTotpSetup(userId: string): Promise<TotpSetup> {
  const existing = await db().totpFactor.findUnique({ where: { userId }, select: { enabledAt: true } });
  if (existing?.enabledAt)
    throw new DomainError("invalid_request", "Two-factor sign-in is already on; turn it off first to set up another app.");
  const secret = newTotpSecret();
  const secretEncrypted = sealSecret(secret, userId);
  // Only a not-yet-enabled row may be replaced: an enrolment confirmed meanwhile stays.
  const replaced = await db().totpFactor.updateMany({ where: { userId, enabledAt: null }, data: { secretEncrypted, lastStep: null } });
  if (replaced.count === 0) {
    await db()
      .totpFactor.create({ data: { userId, secretEncrypted } })
      .catch((error: unknown) => {
        // Another request enabled or started enrolment in between: it wins.
        if (!isUniqueViolation(error)) throw error;
        throw new DomainError("invalid_request", "Two-factor set-up changed in another window; reload and try again.");
      });
  }
  const { issuer, account } = await accountLabel(userId);
  return { secret: base32Encode(secret), uri: otpauthUri(secret, issuer, account) };
}

/**
 * Accepts `code` for the user's TOTP secret at most once: the matched step is recorded, and
 * only a newer step can be accepted after it. `pending` checks a not-yet-enabled secret.
 */
async function acceptTotp(userId: string, code: string, pending: boolean): Promise<boolean> {
  const row = await db().totpFactor.findUnique({ where: { userId } });
  if (!row || Boolean(row.enabledAt) === pending) return false;
  const secret = openSecret(row.secretEncrypted, userId);
  if (!secret) return false;
  const step = matchTotp(secret, code);
  if (step === null) return false;
  const claimed = await db().totpFactor.updateMany({
    where: { userId, secretEncrypted: row.secretEncrypted, OR: [{ lastStep: null }, { lastStep: { lt: BigInt(step) } }] },
    data: pending ? { lastStep: BigInt(step), enabledAt: new Date() } : { lastStep: BigInt(step) },
  });
  return claimed.count === 1;
}

/** Confirms enrolment with a code from the app; returns the new recovery codes. */
export async function confirmTotpSetup(userId: string, code: string, ip: string): Promise<string[]> {
  const attempt = await beginSecondFactorAttempt(userId, ip);
  const row = await db().totpFactor.findUnique({ where: { userId }, select: { enabledAt: true } });
  if (!row) throw new DomainError("invalid_request", "Start the set-up first.");
  if (row.enabledAt) throw new DomainError("invalid_request", "Two-factor sign-in is already on.");
  if (!(await acceptTotp(userId, code, true))) throw new DomainError("invalid_request", WRONG_CODE);
  await attempt.succeeded();
  return db().$transaction((tx) => replaceRecoveryCodes(tx, userId));
}

/**
 * The second step: a TOTP code (6 digits) or a recovery code. Throws unauthorized when it
 * is wrong, rate_limited past the limit.
 */
export async function verifySecondFactor(userId: string, code: string, ip: string): Promise<SecondFactorKind> {
  const attempt = await beginSecondFactorAttempt(userId, ip);
  const digits = code.replace(/\s/g, "");
  const kind: SecondFactorKind = /^\d{6}$/.test(digits) ? "totp" : "recovery_code";
  const ok = kind === "totp" ? await acceptTotp(userId, digits, false) : await consumeRecoveryCode(userId, code);
  if (!ok) throw new DomainError("unauthorized", WRONG_CODE);
  await attempt.succeeded();
  return kind;
}

export interface Confirmation {
  password?: string;
  code?: string;
}

/**
 * When the factor a code belongs to was added: the authenticator app's enrolment for a TOTP
 * code, the issue of the recovery codes for one of them; null when it is not a code of this user.
 */
async function codeFactorAddedAt(userId: string, code: string): Promise<Date | null> {
  const digits = code.replace(/\s/g, "");
  if (/^\d{6}$/.test(digits)) {
    const totp = await db().totpFactor.findUnique({ where: { userId }, select: { enabledAt: true } });
    return totp?.enabledAt ?? null;
  }
  const row = await db().recoveryCode.findUnique({
    where: { userId_codeHash: { userId, codeHash: recoveryCodeHash(code) } },
    select: { createdAt: true },
  });
  return row?.createdAt ?? null;
}

/**
 * A code given as the "it is you" proof (not as a sign-in's second step): verified like one,
 * but refused (403, before a recovery code is used up) while its factor is younger than the
 * confirmation window, so that a factor planted by a stolen session confirms nothing
 * (issue 39 §1, settling.ts). An unknown code goes on to the check, which counts it as wrong.
 */
export async function verifyConfirmingCode(userId: string, code: string, ip: string): Promise<void> {
  const addedAt = await codeFactorAddedAt(userId, code);
  if (addedAt && !factorSettled(addedAt)) throw unsettledFactor();
  await verifySecondFactor(userId, code, ip);
}

/**
 * Checks that the person making a sensitive change is the owner: the account's password, or
 * (for accounts without one, signed in through GitHub and the like) a current code of a
 * factor older than the confirmation window.
 */
export async function confirmOwner(userId: string, proof: Confirmation, ip: string): Promise<void> {
  if (proof.code) {
    await verifyConfirmingCode(userId, proof.code, ip);
    return;
  }
  const user = await db().user.findUniqueOrThrow({ where: { id: userId }, select: { passwordHash: true } });
  if (!proof.password) throw new DomainError("invalid_request", "Confirm with your password or a code from your app.");
  const attempt = await beginSecondFactorAttempt(userId, ip);
  if (!(await verifyPassword(proof.password, user.passwordHash))) throw new DomainError("unauthorized", "Wrong password.");
  await attempt.succeeded();
}

/** Turns two-factor sign-in off: the secret and the recovery codes are deleted. */
export async function disableTwoFactor(userId: string, proof: Confirmation, ip: string): Promise<void> {
  const row = await db().totpFactor.findUnique({ where: { userId }, select: { enabledAt: true } });
  if (!row?.enabledAt) throw new DomainError("invalid_request", "Two-factor sign-in is not on.");
  await confirmOwner(userId, proof, ip);
  await db().$transaction([db().totpFactor.deleteMany({ where: { userId } }), db().recoveryCode.deleteMany({ where: { userId } })]);
}

/** New recovery codes (the old ones stop working), confirmed like disabling. */
export async function renewRecoveryCodes(userId: string, proof: Confirmation, ip: string): Promise<string[]> {
  if (!(await requiresSecondFactor(userId))) throw new DomainError("invalid_request", "Two-factor sign-in is not on.");
  await confirmOwner(userId, proof, ip);
  return db().$transaction((tx) => replaceRecoveryCodes(tx, userId));
}

/**
 * The operator's way back in for someone who lost both the app and the recovery codes
 * (`admin user two-factor-reset`): two-factor sign-in off, recovery codes gone. Passkeys
 * stay; the owner manages them after signing in. Answers whether anything was removed.
 */
export async function resetTwoFactor(userId: string): Promise<boolean> {
  const [totp] = await db().$transaction([
    db().totpFactor.deleteMany({ where: { userId } }),
    db().recoveryCode.deleteMany({ where: { userId } }),
  ]);
  return totp.count > 0;
}
