/**
 * What a password change or reset ends and tells the owner (issue 39 §2, docs/security.md): a
 * pending e-mail change may be an attacker's, so it is cancelled; keys are listed, not revoked
 * silently, since the owner's uploaders would break.
 */
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { cancelPendingEmailChanges } from "./email-change";
import { mailConfigured, sendMailLater } from "./mail";

export type PasswordEvent = "changed" | "reset";

/** One line per item, dated: "ShareX (key abc…, last used 2026-12-01)". */
const day = (at: Date | null): string => (at ? at.toISOString().slice(0, 10) : "never");

/** Answers the addresses cancelled. */
export async function afterPasswordChange(userId: string, event: PasswordEvent): Promise<string[]> {
  const cancelled = await cancelPendingEmailChanges(userId);
  if (!mailConfigured()) return cancelled;
  const [user, apps, sessions] = await Promise.all([
    db().user.findUnique({ where: { id: userId }, select: { email: true, displayUsername: true } }),
    db().app.findMany({
      where: { userId, keyHash: { not: null } },
      select: { name: true, keyHint: true, lastUsedAt: true },
      orderBy: { createdAt: "asc" },
    }),
    db().relaySession.findMany({
      where: { userId },
      select: { name: true, lastActiveAt: true },
      orderBy: { lastActiveAt: "desc" },
      take: 50,
    }),
  ]);
  if (!user?.email) return cancelled;
  const base = env().PUBLIC_URL;
  const lines = [
    `The password of ${user.displayUsername} at ${base} was ${event === "reset" ? "reset with a link mailed to this address" : "changed"}.`,
    "",
    ...cancelled.map((address) => `The pending change of this account's address to ${address} was cancelled.`),
    ...(cancelled.length ? [""] : []),
    apps.length ? "These app keys still work (uploaders use them; they were not revoked):" : "No app key works on this account.",
    ...apps.map((a) => `- ${a.name}${a.keyHint ? ` (key ${a.keyHint}…)` : ""}, last used ${day(a.lastUsedAt)}`),
    `Revoke any you do not know: ${base}/dashboard/apps`,
    "",
    sessions.length ? "These sessions are still signed in:" : "No session is signed in any more.",
    ...sessions.map((s) => `- ${s.name ?? "Unknown device"}, last active ${day(s.lastActiveAt)}`),
    `Sign out any you do not know: ${base}/dashboard/settings`,
    "",
    "If it was not you, reset your password now and check the two lists above.",
  ];
  sendMailLater({ to: user.email, subject: `Your password was ${event}`, text: lines.join("\n") });
  return cancelled;
}
