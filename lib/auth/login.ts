/**
 * Relay sign-in (docs/relay-account.md). Wrong credentials are one answer taking the same time
 * whether the account is unknown, has no password or the password is wrong; suspension and the
 * second factor (docs/two-factor.md) are only told after the right password, so neither can be
 * probed. A hash made with older scrypt settings is redone here, the only moment the password
 * is at hand.
 */
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { deviceName } from "@/lib/sessions/device-name";
import { openSession, type SessionRecord } from "@/lib/sessions/devices";
import { beginLoginAttempt } from "./attempts";
import { requiresSecondFactor, verifySecondFactor } from "./factors/two-factor";
import { hashPassword, needsRehash, verifyPassword } from "@/lib/crypto/password";

export interface SignInInput {
  /** Username (any case) or email. */
  login: string;
  password: string;
  code?: string;
  /** Otherwise derived from the User-Agent. */
  device?: string;
  userAgent: string | null;
  ip: string;
}

export interface SignedIn {
  /** Shown once, never stored. */
  key: string;
  session: SessionRecord;
}

const WRONG_CREDENTIALS = "Wrong username, email or password.";

export const TWO_FACTOR_REQUIRED = "This account uses two-factor sign-in: a code from the authenticator app or a recovery code is needed.";

/** The first factor: the user id when login and password are right and the account is not suspended. */
export async function checkPassword(input: Pick<SignInInput, "login" | "password" | "ip">): Promise<string> {
  // Usernames cannot contain "@" (lib/users/accounts.ts), so an "@" means an email address.
  const login = input.login.trim().toLowerCase();
  const user = await db().user.findUnique({
    where: login.includes("@") ? { email: login } : { username: login },
    select: { id: true, passwordHash: true, suspended: true },
  });
  // Known accounts are counted by id, so the username and the email share one budget.
  const attempt = await beginLoginAttempt(user ? `user:${user.id}` : `name:${login}`, input.ip);

  const valid = await verifyPassword(input.password, user?.passwordHash);
  if (!user || !valid) throw new DomainError("unauthorized", WRONG_CREDENTIALS);
  await attempt.succeeded();
  if (needsRehash(user.passwordHash)) await upgradeHash(user.id, user.passwordHash!, input.password);
  if (user.suspended) throw new DomainError("suspended", "This account is suspended.");
  return user.id;
}

export async function signIn(input: SignInInput): Promise<SignedIn> {
  const userId = await checkPassword(input);
  if (await requiresSecondFactor(userId)) {
    if (!input.code) throw new DomainError("unauthorized", TWO_FACTOR_REQUIRED, undefined, { two_factor_required: true });
    await verifySecondFactor(userId, input.code, input.ip);
  }
  return openSession({
    userId,
    name: deviceName(input.userAgent, input.device),
    userAgent: input.userAgent ?? undefined,
    ip: input.ip,
    confirmed: true,
  });
}

/** A password change racing this sign-in wins; a failure here must not fail a sign-in whose password was right. */
async function upgradeHash(userId: string, oldHash: string, password: string): Promise<void> {
  try {
    const passwordHash = await hashPassword(password);
    await db().user.updateMany({ where: { id: userId, passwordHash: oldHash }, data: { passwordHash } });
  } catch (error) {
    console.error(`password rehash for user ${userId} failed`, error);
  }
}
