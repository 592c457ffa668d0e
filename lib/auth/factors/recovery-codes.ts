/**
 * One-time recovery codes (docs/two-factor.md): 10 per enrolment, about 79 random bits each (16 symbols of 31),
 * shown once as `xxxx-xxxx-xxxx-xxxx` and stored only as SHA-256. 79 bits make an unsalted
 * fast hash safe (no offline search can cover 2⁷⁹), and unlike a peppered hash they keep
 * working when SIGNING_SECRET changes: they are the way back in when the TOTP secret can no
 * longer be decrypted.
 */
import { createHash, randomBytes } from "node:crypto";
import { db, type Tx } from "@/lib/db/client";

export const RECOVERY_CODE_COUNT = 10;
// No 0/o, 1/l/i: codes are copied by hand from paper.
const ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz";

export function newRecoveryCode(): string {
  const bytes = randomBytes(16);
  let code = "";
  for (const byte of bytes) code += ALPHABET[byte % ALPHABET.length];
  return code.match(/.{4}/g)!.join("-");
}

/** The canonical form: lower-case, no separators. */
export const normalizeRecoveryCode = (input: string): string => input.toLowerCase().replace(/[^a-z0-9]/g, "");

export const recoveryCodeHash = (input: string): string => createHash("sha256").update(normalizeRecoveryCode(input)).digest("hex");

/** Replaces every recovery code of the user with new ones; returns them (the only time they exist in clear). */
export async function replaceRecoveryCodes(tx: Tx, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await tx.recoveryCode.deleteMany({ where: { userId } });
  await tx.recoveryCode.createMany({ data: codes.map((code) => ({ userId, codeHash: recoveryCodeHash(code) })) });
  return codes;
}

/**
 * Uses up one code: true when it was an unused code of this user. A conditional update, so
 * two requests racing with the same code cannot both succeed.
 */
export async function consumeRecoveryCode(userId: string, input: string): Promise<boolean> {
  if (normalizeRecoveryCode(input).length !== 16) return false;
  const used = await db().recoveryCode.updateMany({
    where: { userId, codeHash: recoveryCodeHash(input), usedAt: null },
    data: { usedAt: new Date() },
  });
  return used.count === 1;
}

export async function recoveryCodesLeft(userId: string): Promise<number> {
  return db().recoveryCode.count({ where: { userId, usedAt: null } });
}
