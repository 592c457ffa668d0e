/** The signed-in user behind a dashboard page or server action (next-auth, lib/web/viewer.ts). */
import { redirect } from "next/navigation";
import { requireRecentConfirmation } from "@/lib/auth/confirmation";
import { suspendedError } from "@/lib/auth/suspension";
import { DomainError } from "@/lib/errors";
import { getViewer, type Viewer } from "@/lib/web/viewer";

export type DashboardUser = NonNullable<Awaited<ReturnType<typeof getViewer>>>;

/** For pages: the viewer, or a redirect to sign-in that comes back to `returnTo`. */
export async function requireDashboardUser(returnTo: string): Promise<DashboardUser> {
  const viewer = await getViewer();
  if (!viewer) redirect(`/signin?callbackUrl=${encodeURIComponent(returnTo)}`);
  return viewer;
}

/**
 * Who may act: the viewer, unless the session ended (unauthorized) or the account is
 * suspended (403 `suspended`, exactly as the API and Relay answer the same user: issue 27).
 */
export function actingUserIdOf(viewer: Viewer | null): string {
  if (!viewer) throw new DomainError("unauthorized", "Your session has ended; sign in again.");
  if (viewer.suspended) throw suspendedError();
  return viewer.id;
}

/** For server actions: the signed-in, unsuspended viewer's id. */
export async function actingUserId(): Promise<string> {
  return actingUserIdOf(await getViewer());
}

/**
 * For server actions that issue a credential (app and team keys): the viewer's id, once its
 * session gave its password or a settled factor in the last 10 minutes (403 with
 * `confirmation_required` otherwise; docs/security.md).
 */
export async function confirmedActingUserId(): Promise<string> {
  const viewer = await getViewer();
  const userId = actingUserIdOf(viewer);
  await requireRecentConfirmation(userId, viewer?.sessionId ?? null);
  return userId;
}
