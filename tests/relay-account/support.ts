/** Helpers shared by the Relay account tests. */
import { resetEnv } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { hashPassword } from "@/lib/crypto/password";

export const PASSWORD = "correct horse battery";

let stored: Promise<string> | undefined;
/** One scrypt hash for the whole file: hashing costs about half a second on a small box. */
export function passwordHash(): Promise<string> {
  stored ??= hashPassword(PASSWORD);
  return stored;
}

/** Gives an existing user (createTestUser) a password and an email address. */
export async function withPassword(userId: string, email?: string): Promise<void> {
  await db().user.update({ where: { id: userId }, data: { passwordHash: await passwordHash(), email: email?.toLowerCase() ?? null } });
}

/** Runs `work` with REGISTRATION set to `mode`, then restores the previous value. */
export async function withRegistration<T>(mode: "open" | "invite" | "closed", work: () => Promise<T>): Promise<T> {
  const previous = process.env.REGISTRATION;
  process.env.REGISTRATION = mode;
  resetEnv();
  try {
    return await work();
  } finally {
    if (previous === undefined) delete process.env.REGISTRATION;
    else process.env.REGISTRATION = previous;
    resetEnv();
  }
}

let counter = 0;
/** A username nobody has yet in this test database. */
export const freshName = (prefix = "u"): string => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`;
