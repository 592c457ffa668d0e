/**
 * Changing the account's email (docs/web-auth.md, "Email address"). It receives reset links,
 * so a change needs the password (or a settled factor's code) and, with mail configured, a
 * click on a link sent to the new address; the old one gets a one-click cancel. Tokens are
 * stored as their SHA-256 only.
 */
import { createHash, randomBytes } from "node:crypto";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { isUniqueViolation } from "@/lib/prisma-support";
import { normaliseEmail } from "@/lib/users/accounts";
import { confirmOwner, type Confirmation } from "./factors/two-factor";
import { mailConfigured, sendMailLater } from "./mail";

export const EMAIL_CONFIRM_TTL_MS = 24 * 60 * 60 * 1000;

const sha256 = (token: string): string => createHash("sha256").update(token).digest("hex");
const taken = () => new DomainError("invalid_request", "That email address is already used by another account.");

export interface EmailChangeResult {
  email: string | null;
  pendingEmail: string | null;
}

const newToken = (): string => randomBytes(32).toString("base64url");

export const cancelLink = (token: string): string => `${env().PUBLIC_URL}/cancel-email-change?token=${token}`;

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
  const user = await db().user.findUniqueOrThrow({ where: { id: userId }, select: { displayUsername: true, email: true } });
  const token = newToken();
  const cancelToken = user.email ? newToken() : null;
  const data = {
    email,
    tokenHash: sha256(token),
    oldEmail: user.email,
    cancelTokenHash: cancelToken ? sha256(cancelToken) : null,
    expiresAt: new Date(Date.now() + EMAIL_CONFIRM_TTL_MS),
  };
  await db().emailChange.upsert({ where: { userId }, create: { userId, ...data }, update: data });
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
  if (user.email && cancelToken) {
    sendMailLater({
      to: user.email,
      subject: "Your email address is about to change",
      text: [
        `Someone signed in as ${user.displayUsername} at ${env().PUBLIC_URL} asked to move the account to ${email}.`,
        "Nothing changes until that address confirms.",
        "",
        "If it was not you, cancel it with one click (the link works for 24 hours):",
        cancelLink(cancelToken),
        "",
        "Then change your password: someone may be signed in as you.",
      ].join("\n"),
    });
  }
  return { email: user.email, pendingEmail: email };
}

/** The old address's cancel; null when the link is unknown, used or expired. */
export async function cancelEmailChange(token: string): Promise<string | null> {
  if (!token || token.length > 100) return null;
  const row = await db().emailChange.findUnique({ where: { cancelTokenHash: sha256(token) }, select: { id: true, oldEmail: true } });
  if (!row) return null;
  const { count } = await db().emailChange.deleteMany({ where: { id: row.id } });
  return count === 1 ? row.oldEmail : null;
}

/** On a password reset or change (issue 39 §2); answers the addresses dropped. */
export async function cancelPendingEmailChanges(userId: string): Promise<string[]> {
  const pending = await db().emailChange.findMany({ where: { userId }, select: { id: true, email: true } });
  if (pending.length === 0) return [];
  await db().emailChange.deleteMany({ where: { id: { in: pending.map((p) => p.id) } } });
  return pending.map((p) => p.email);
}

export async function pendingEmailOf(token: string): Promise<string | null> {
  if (!token || token.length > 100) return null;
  const row = await db().emailChange.findUnique({ where: { tokenHash: sha256(token) }, select: { email: true, expiresAt: true } });
  return row && row.expiresAt.getTime() > Date.now() ? row.email : null;
}

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
  if (row.oldEmail && row.oldEmail !== row.email) {
    sendMailLater({
      to: row.oldEmail,
      subject: "Your email address was changed",
      text: [
        `The account at ${env().PUBLIC_URL} that used this address now uses ${row.email}.`,
        "",
        "If it was not you, ask the site's administrator for help: password-reset links go to the new address now.",
      ].join("\n"),
    });
  }
  return row.email;
}
