/**
 * Recent confirmation (issue 27, issue 39 §1; docs/security.md, docs/two-factor.md): changes
 * that would let a stolen session keep the account need the password or a second factor given
 * in this session within the last RECENT_CONFIRMATION_MS. A sign-in with a password, a code or
 * a passkey counts (the session row's `confirmedAt` is set when it is opened); later,
 * POST /relay/auth/confirm with `{password}` or `{code}` sets it again.
 *
 * A factor confirms only once it is older than the window (`FACTOR_SETTLING_MS`): a session
 * that plants a factor cannot use it to confirm its own sensitive changes (the takeover chain
 * of issue 39 §1). Changes that take the proof in their own request (password, e-mail, turning
 * two-factor off, new recovery codes) check it through `confirmOwner`, with the same rule.
 */
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { confirmOwner, hasSecondFactor, type Confirmation } from "./factors/two-factor";

import { FACTOR_SETTLING_MS, RECENT_CONFIRMATION_MS } from "./factors/settling";

export { FACTOR_SETTLING_MS, RECENT_CONFIRMATION_MS };

export const CONFIRMATION_REQUIRED =
  "Confirm it is you first: enter your password or a code from your app (the last confirmation is over 10 minutes old).";

/** Checks the proof (password, else a TOTP or recovery code) and marks the session confirmed; answers until when. */
export async function confirmSession(userId: string, sessionId: string, proof: Confirmation, ip: string): Promise<Date> {
  await confirmOwner(userId, proof, ip);
  const now = new Date();
  const { count } = await db().relaySession.updateMany({ where: { id: sessionId, userId }, data: { confirmedAt: now } });
  if (count === 0) throw new DomainError("unauthorized", "This session has ended; sign in again.");
  return new Date(now.getTime() + RECENT_CONFIRMATION_MS);
}

const within = (at: Date | null | undefined): boolean =>
  at !== null && at !== undefined && Date.now() - at.getTime() <= RECENT_CONFIRMATION_MS;

/**
 * 403 `forbidden` with `confirmation_required: true` unless the session was confirmed in the
 * last 10 minutes. An account with nothing to confirm with (no password, no second factor:
 * a GitHub or OIDC account) counts its sign-in instead, the only proof it has: a session
 * opened in the last 10 minutes.
 */
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
