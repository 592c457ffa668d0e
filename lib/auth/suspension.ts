/**
 * The one suspension check every way in shares (password, passkey, two-factor step,
 * OAuth / OIDC, Relay log-in): a suspended account gets no new session anywhere
 * (docs/web-auth.md). Requests with an existing session are refused by the dispatcher and
 * the dashboard's actions (lib/web/dashboard/user.ts) from the principal's `suspended`.
 */
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";

export const SUSPENDED_MESSAGE = "This account is suspended.";

export const suspendedError = (): DomainError => new DomainError("suspended", SUSPENDED_MESSAGE);

/** Throws 403 `suspended` when the account is suspended (not_found when it is gone). */
export async function assertNotSuspended(userId: string): Promise<void> {
  const user = await db().user.findUnique({ where: { id: userId }, select: { suspended: true } });
  if (!user) throw new DomainError("not_found", "No such account.");
  if (user.suspended) throw suspendedError();
}
