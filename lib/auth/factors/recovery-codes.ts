/**
 * One-time recovery codes (docs/two-factor.md), stored as SHA-256 only: ~79 random bits make
 * an unsalted fast hash safe, and unlike a peppered one they survive a SIGNING_SECRET change,
 * when they are the way back in.
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

export const normalizeRecoveryCode = (input: string): string => input.toLowerCase().replace(/[^a-z0-9]/g, "");

export const recoveryCodeHash = (input: string): string => createHash("sha256").update(normalizeRecoveryCode(input)).digest("hex");

/** Returns them: the only time they exist in clear. */
export async function replaceRecoveryCodes(tx: Tx, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await tx.recoveryCode.deleteMany({ where: { userId } });
  await tx.recoveryCode.createMany({ data: codes.map((code) => ({ userId, codeHash: recoveryCodeHash(code) })) });
  return codes;
}

/** A conditional update, so two requests racing with the same code cannot both succeed. */
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
