/**
 * Relay sign-up as far as REGISTRATION allows (docs/web-auth.md). An invite code is claimed by
 * one conditional UPDATE before the account is made, so two sign-ups cannot both win it, and
 * given back if the account then cannot be created.
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
