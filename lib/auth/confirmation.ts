/**
 * Recent confirmation (issue 27, docs/two-factor.md): changes that would let a stolen
 * session keep the account (adding or deleting a passkey) need the password or a second
 * factor given in this session within the last RECENT_CONFIRMATION_MS. A sign-in with a
 * password, a code or a passkey counts (the session row's `confirmedAt` is set when it is
 * opened); later, POST /relay/auth/confirm with `{password}` or `{code}` sets it again.
 * Changing the password and new recovery codes take the proof in their own request.
 */
import { db } from "../db/client";
import { DomainError } from "../errors";
import { confirmOwner, type Confirmation } from "./factors/two-factor";

export const RECENT_CONFIRMATION_MS = 10 * 60 * 1000;

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

/** 403 `forbidden` with `confirmation_required: true` unless the session was confirmed in the last 10 minutes. */
export async function requireRecentConfirmation(userId: string, sessionId: string | null): Promise<void> {
  const row = sessionId ? await db().relaySession.findFirst({ where: { id: sessionId, userId }, select: { confirmedAt: true } }) : null;
  const at = row?.confirmedAt?.getTime();
  if (at !== undefined && Date.now() - at <= RECENT_CONFIRMATION_MS) return;
  throw new DomainError("forbidden", CONFIRMATION_REQUIRED, undefined, { confirmation_required: true });
}
