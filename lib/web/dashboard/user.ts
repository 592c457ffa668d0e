/** The signed-in user behind a dashboard page or server action (next-auth, lib/web/viewer.ts). */
import { redirect } from "next/navigation";
import { DomainError } from "@/lib/errors";
import { getViewer } from "@/lib/web/viewer";

export type DashboardUser = NonNullable<Awaited<ReturnType<typeof getViewer>>>;

/** For pages: the viewer, or a redirect to sign-in that comes back to `returnTo`. */
export async function requireDashboardUser(returnTo: string): Promise<DashboardUser> {
  const viewer = await getViewer();
  if (!viewer) redirect(`/signin?callbackUrl=${encodeURIComponent(returnTo)}`);
  return viewer;
}

/** For server actions: the viewer's id, or unauthorized (the session ended meanwhile). */
export async function actingUserId(): Promise<string> {
  const viewer = await getViewer();
  if (!viewer) throw new DomainError("unauthorized", "Your session has ended; sign in again.");
  return viewer.id;
}
