/**
 * Relay sign-up: creates an account and signs it in, as far as REGISTRATION allows.
 *
 * - `open`: anyone may sign up.
 * - `invite`: a valid invite code is needed: one that exists, is unused and has not
 *   expired. It is claimed with one conditional UPDATE before the account is created, so
 *   two sign-ups racing for one code cannot both win; if the account then cannot be
 *   created (username taken, ...) the claim is undone and the code stays usable.
 * - `closed`: 403 forbidden.
 *
 * Account rules (username, email, password) are createUser's (lib/users/accounts.ts).
 * Attempts are limited per client address and per requested name and email (attempts.ts):
 * each may cost a scrypt hash, and each answer tells whether a name is taken.
 */
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { deviceName } from "@/lib/sessions/device-name";
import { openSession } from "@/lib/sessions/devices";
import { createUser, type Account } from "@/lib/users/accounts";
import { countRegistrationAttempt } from "./attempts";
import type { SignedIn } from "./login";

export interface SignUpInput {
  username: string;
  password: string;
  email?: string;
  invite?: string;
  device?: string;
  userAgent: string | null;
  ip: string;
}

const INVALID_INVITE = "This invite code is not valid, already used or expired.";

export async function signUp(input: SignUpInput): Promise<SignedIn> {
  const mode = env().REGISTRATION;
  if (mode === "closed") throw new DomainError("forbidden", "Sign-up is closed on this server.");
  const invite = mode === "invite" ? input.invite?.trim() : undefined;
  if (mode === "invite" && !invite) throw new DomainError("forbidden", "Sign-up needs an invite code on this server.");
  await countRegistrationAttempt(input.ip, input.username, input.email);

  const user = invite ? await createWithInvite(input, invite) : await create(input);
  return openSession({
    userId: user.id,
    name: deviceName(input.userAgent, input.device),
    userAgent: input.userAgent ?? undefined,
    ip: input.ip,
    // The password was chosen a moment ago.
    confirmed: true,
  });
}

const create = (input: SignUpInput): Promise<Account> =>
  createUser({ username: input.username, password: input.password, email: input.email });

async function createWithInvite(input: SignUpInput, code: string): Promise<Account> {
  const now = new Date();
  const claimed = await db().invite.updateMany({
    where: { code, usedAt: null, usedById: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
    data: { usedAt: now },
  });
  if (claimed.count === 0) throw new DomainError("forbidden", INVALID_INVITE);
  let user: Account;
  try {
    user = await create(input);
  } catch (error) {
    await db().invite.updateMany({ where: { code, usedAt: now, usedById: null }, data: { usedAt: null } });
    throw error;
  }
  await db().invite.update({ where: { code }, data: { usedById: user.id } });
  return user;
}
