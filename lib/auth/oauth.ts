/**
 * Sign-in through GitHub or Discord (docs/web-auth.md). An unknown provider account creates a
 * user only when registration is `open`. Never linked by email: a provider may report an
 * address it did not verify.
 */
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { isUniqueViolation } from "@/lib/prisma-support";
import { createUser, usernameProblem } from "@/lib/users/accounts";

export interface OAuthIdentity {
  provider: string;
  providerAccountId: string;
  name: string | null;
}

export async function userForOAuthIdentity(identity: OAuthIdentity): Promise<string> {
  const where = { provider_providerAccountId: { provider: identity.provider, providerAccountId: identity.providerAccountId } };
  const linked = await db().oAuthAccount.findUnique({ where, select: { userId: true } });
  if (linked) return linked.userId;
  if (env().REGISTRATION !== "open") {
    throw new DomainError("forbidden", "No account on this server is linked to that sign-in, and sign-up is not open.");
  }
  const user = await createUser({ username: await freeUsername(identity.name) });
  try {
    await db().oAuthAccount.create({
      data: { userId: user.id, provider: identity.provider, providerAccountId: identity.providerAccountId },
    });
    return user.id;
  } catch (error) {
    // Two first sign-ins racing: keep the link that won, drop the user made for nothing.
    await db()
      .user.delete({ where: { id: user.id } })
      .catch(() => {});
    if (!isUniqueViolation(error)) throw error;
    const winner = await db().oAuthAccount.findUniqueOrThrow({ where, select: { userId: true } });
    return winner.userId;
  }
}

/** Made valid and untaken ("name", "name-2", ...). */
async function freeUsername(wanted: string | null): Promise<string> {
  let base = (wanted ?? "")
    .replace(/[^A-Za-z0-9_.-]+/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "")
    .slice(0, 28);
  if (usernameProblem(base)) base = "user";
  for (let n = 1; n < 50; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    const taken = await db().user.findUnique({ where: { username: candidate.toLowerCase() }, select: { id: true } });
    if (!taken) return candidate;
  }
  return `${base}-${Date.now().toString(36)}`;
}
