/** The suspension check every way in shares: a suspended account gets no new session anywhere (docs/web-auth.md). */
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";

export const SUSPENDED_MESSAGE = "This account is suspended.";

export const suspendedError = (): DomainError => new DomainError("suspended", SUSPENDED_MESSAGE);

/** 403 `suspended`; not_found when the account is gone. */
export async function assertNotSuspended(userId: string): Promise<void> {
  const user = await db().user.findUnique({ where: { id: userId }, select: { suspended: true } });
  if (!user) throw new DomainError("not_found", "No such account.");
  if (user.suspended) throw suspendedError();
}
