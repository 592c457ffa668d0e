/**
 * Changing the account's email address (issue 27 §1, docs/web-auth.md "Email address"). The
 * address receives password-reset links, so a change needs the password (or a code, for an
 * account without one), and, when mail is configured, a click on a link sent to the **new**
 * address: until then the old address stays. Without mail the change is immediate (there is
 * no way to check the address then). One pending change per account; a new request
 * replaces it. The token is stored as its SHA-256 only, and lasts 24 hours.
 */
import { createHash, randomBytes } from "node:crypto";
import { env } from "../config/env";
import { db } from "../db/client";
import { DomainError } from "../errors";
import { isUniqueViolation } from "../prisma-support";
import { normaliseEmail } from "../users/accounts";
import { confirmOwner, type Confirmation } from "./factors/two-factor";
import { mailConfigured, sendMailLater } from "./mail";

export const EMAIL_CONFIRM_TTL_MS = 24 * 60 * 60 * 1000;

const sha256 = (token: string): string => createHash("sha256").update(token).digest("hex");
const taken = () => new DomainError("invalid_request", "That email address is already used by another account.");

export interface EmailChangeResult {
  /** The account's address now. */
  email: string | null;
  /** The new address waiting for its confirmation link, if any. */
  pendingEmail: string | null;
}

/** Changes the address at once (no mail), or mails a confirmation link to the new one. */
export async function requestEmailChange(userId: string, newEmail: string, proof: Confirmation, ip: string): Promise<EmailChangeResult> {
  const email = normaliseEmail(newEmail);
  await confirmOwner(userId, proof, ip);
  const owner = await db().user.findUnique({ where: { email }, select: { id: true } });
  if (owner && owner.id !== userId) throw taken();
  if (!mailConfigured()) {
    try {
      await db().user.update({ where: { id: userId }, data: { email } });
    } catch (error) {
      if (isUniqueViolation(error)) throw taken();
      throw error;
    }
    return { email, pendingEmail: null };
  }
  const token = randomBytes(32).toString("base64url");
  const data = { email, tokenHash: sha256(token), expiresAt: new Date(Date.now() + EMAIL_CONFIRM_TTL_MS) };
  await db().emailChange.upsert({ where: { userId }, create: { userId, ...data }, update: data });
  const user = await db().user.findUniqueOrThrow({ where: { id: userId }, select: { displayUsername: true, email: true } });
  sendMailLater({
    to: email,
    subject: "Confirm your new email address",
    text: [
      `${user.displayUsername} at ${env().PUBLIC_URL} asked to use this address.`,
      "",
      "Confirm it here (the link works for 24 hours):",
      `${env().PUBLIC_URL}/confirm-email?token=${token}`,
      "",
      "If it was not you, ignore this mail: nothing changes.",
    ].join("\n"),
  });
  return { email: user.email, pendingEmail: email };
}

/** For the confirmation page: the address a token would set, or null when it is not valid. */
export async function pendingEmailOf(token: string): Promise<string | null> {
  if (!token || token.length > 100) return null;
  const row = await db().emailChange.findUnique({ where: { tokenHash: sha256(token) }, select: { email: true, expiresAt: true } });
  return row && row.expiresAt.getTime() > Date.now() ? row.email : null;
}

/** Sets the new address from a confirmation link (used up by it). */
export async function confirmEmailChange(token: string): Promise<string> {
  const row = token && token.length <= 100 ? await db().emailChange.findUnique({ where: { tokenHash: sha256(token) } }) : null;
  if (!row || row.expiresAt.getTime() <= Date.now()) {
    throw new DomainError("unauthorized", "This confirmation link is not valid any more; change the address again.");
  }
  // Deleting it first makes the link single-use even with two clicks at once.
  const { count } = await db().emailChange.deleteMany({ where: { id: row.id } });
  if (count === 0) throw new DomainError("unauthorized", "This confirmation link was used already.");
  try {
    await db().user.update({ where: { id: row.userId }, data: { email: row.email } });
  } catch (error) {
    if (isUniqueViolation(error)) throw taken();
    throw error;
  }
  return row.email;
}
