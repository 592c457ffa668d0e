/**
 * Two-factor sign-in with TOTP and recovery codes (docs/two-factor.md). A TOTP code is
 * accepted once: its step must be newer than the last accepted one (a conditional update,
 * so concurrent uses cannot both pass); a recovery code is used up by its first use.
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
  secret: string;
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

export async function requiresSecondFactor(userId: string): Promise<boolean> {
  const totp = await db().totpFactor.findUnique({ where: { userId }, select: { enabledAt: true } });
  return Boolean(totp?.enabledAt);
}

export async function hasSecondFactor(userId: string): Promise<boolean> {
  const [totp, passkeys] = await Promise.all([requiresSecondFactor(userId), db().passkey.count({ where: { userId } })]);
  return totp || passkeys > 0;
}

async function accountLabel(userId: string): Promise<{ issuer: string; account: string }> {
  const user = await db().user.findUniqueOrThrow({ where: { id: userId }, select: { displayUsername: true } });
  return { issuer: new URL(env().PUBLIC_URL).host, account: user.displayUsername };
}

/** Refused while two-factor sign-in is on: turn it off first. */
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

/** At most once per step: only a newer step is accepted after it. `pending`: a not-yet-enabled secret. */
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

export async function confirmTotpSetup(userId: string, code: string, ip: string): Promise<string[]> {
  const attempt = await beginSecondFactorAttempt(userId, ip);
  const row = await db().totpFactor.findUnique({ where: { userId }, select: { enabledAt: true } });
  if (!row) throw new DomainError("invalid_request", "Start the set-up first.");
  if (row.enabledAt) throw new DomainError("invalid_request", "Two-factor sign-in is already on.");
  if (!(await acceptTotp(userId, code, true))) throw new DomainError("invalid_request", WRONG_CODE);
  await attempt.succeeded();
  return db().$transaction((tx) => replaceRecoveryCodes(tx, userId));
}

/** The second step: a TOTP code or a recovery code. */
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

/** When the code's factor was added; null when it is not a code of this user. */
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
 * A code as the "it is you" proof: refused (before a recovery code is used up) while its
 * factor is younger than the confirmation window, so a factor planted by a stolen session
 * confirms nothing (issue 39 §1).
 */
export async function verifyConfirmingCode(userId: string, code: string, ip: string): Promise<void> {
  const addedAt = await codeFactorAddedAt(userId, code);
  if (addedAt && !factorSettled(addedAt)) throw unsettledFactor();
  await verifySecondFactor(userId, code, ip);
}

/** The account's password or, for accounts without one, a code of a factor older than the confirmation window. */
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

export async function disableTwoFactor(userId: string, proof: Confirmation, ip: string): Promise<void> {
  const row = await db().totpFactor.findUnique({ where: { userId }, select: { enabledAt: true } });
  if (!row?.enabledAt) throw new DomainError("invalid_request", "Two-factor sign-in is not on.");
  await confirmOwner(userId, proof, ip);
  await db().$transaction([db().totpFactor.deleteMany({ where: { userId } }), db().recoveryCode.deleteMany({ where: { userId } })]);
}

export async function renewRecoveryCodes(userId: string, proof: Confirmation, ip: string): Promise<string[]> {
  if (!(await requiresSecondFactor(userId))) throw new DomainError("invalid_request", "Two-factor sign-in is not on.");
  await confirmOwner(userId, proof, ip);
  return db().$transaction((tx) => replaceRecoveryCodes(tx, userId));
}

/** `admin user two-factor-reset`: passkeys stay. Answers whether anything was removed. */
export async function resetTwoFactor(userId: string): Promise<boolean> {
  const [totp] = await db().$transaction([
    db().totpFactor.deleteMany({ where: { userId } }),
    db().recoveryCode.deleteMany({ where: { userId } }),
  ]);
  return totp.count > 0;
}
