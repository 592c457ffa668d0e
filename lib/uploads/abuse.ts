/**
 * The abuse safeguard: more than 8 uploads within one second on POST /upload suspends a
 * personal account; a team key gets 429 instead (a shared key must not take the owner's
 * account down). Counted in the shared counter store, so it holds across instances.
 */
import type { Principal } from "@/lib/types/principal";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { counterStore, principalSubject, UPLOAD_BURST } from "@/lib/ratelimit";

export async function checkUploadBurst(principal: Principal): Promise<void> {
  const subject = principalSubject(principal);
  // Sliding: any second counts, not only the one that began with the first upload.
  const count = await counterStore().countRecent(`upload_burst:${subject}`, UPLOAD_BURST.windowSeconds);
  if (count <= UPLOAD_BURST.max) return;
  if (principal.kind === "team") {
    throw new DomainError("rate_limited", "Too many uploads in one second; slow down.");
  }
  await db().user.update({ where: { id: principal.user.id }, data: { suspended: true, suspendedAt: new Date() } });
  throw new DomainError("suspended", "This account was suspended for uploading too fast; contact support to appeal.");
}
