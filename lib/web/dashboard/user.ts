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

/** The viewer, unless the session ended (unauthorized) or the account is suspended (403, as on the API: issue 27). */
export function actingUserIdOf(viewer: Viewer | null): string {
  if (!viewer) throw new DomainError("unauthorized", "Your session has ended; sign in again.");
  if (viewer.suspended) throw suspendedError();
  return viewer.id;
}

export async function actingUserId(): Promise<string> {
  return actingUserIdOf(await getViewer());
}

/** For actions that issue a credential: a password or settled factor in the last 10 minutes, else 403 `confirmation_required` (docs/security.md). */
export async function confirmedActingUserId(): Promise<string> {
  const viewer = await getViewer();
  const userId = actingUserIdOf(viewer);
  await requireRecentConfirmation(userId, viewer?.sessionId ?? null);
  return userId;
}
