/**
 * Recent confirmation (docs/security.md, docs/two-factor.md): changes that would let a stolen
 * session keep the account need a proof given in this session within RECENT_CONFIRMATION_MS.
 * A factor confirms only once older than `FACTOR_SETTLING_MS`, so a session that plants one
 * cannot use it (the takeover chain of issue 39 §1).
 */
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { confirmOwner, hasSecondFactor, type Confirmation } from "./factors/two-factor";

import { FACTOR_SETTLING_MS, RECENT_CONFIRMATION_MS } from "./factors/settling";

export { FACTOR_SETTLING_MS, RECENT_CONFIRMATION_MS };

export const CONFIRMATION_REQUIRED =
  "Confirm it is you first: enter your password or a code from your app (the last confirmation is over 10 minutes old).";

/** Answers until when the session is confirmed. */
export async function confirmSession(userId: string, sessionId: string, proof: Confirmation, ip: string): Promise<Date> {
  await confirmOwner(userId, proof, ip);
  const now = new Date();
  const { count } = await db().relaySession.updateMany({ where: { id: sessionId, userId }, data: { confirmedAt: now } });
  if (count === 0) throw new DomainError("unauthorized", "This session has ended; sign in again.");
  return new Date(now.getTime() + RECENT_CONFIRMATION_MS);
}

const within = (at: Date | null | undefined): boolean =>
  at !== null && at !== undefined && Date.now() - at.getTime() <= RECENT_CONFIRMATION_MS;

/** An account with nothing to confirm with (GitHub, OIDC) counts its sign-in, the only proof it has. */
export async function requireRecentConfirmation(userId: string, sessionId: string | null): Promise<void> {
  const row = sessionId
    ? await db().relaySession.findFirst({
        where: { id: sessionId, userId },
        select: { confirmedAt: true, createdAt: true, user: { select: { passwordHash: true } } },
      })
    : null;
  if (row && within(row.confirmedAt)) return;
  if (row && !row.user.passwordHash && within(row.createdAt) && !(await hasSecondFactor(userId))) return;
  throw new DomainError("forbidden", CONFIRMATION_REQUIRED, undefined, { confirmation_required: true });
}
