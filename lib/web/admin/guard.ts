/**
 * Who may use the operator's console (docs/admin.md): a signed-in, unsuspended admin.
 * Everyone else, signed out included, gets a 404, so the console's existence is not
 * advertised. Every admin page, route and server action calls this itself on the server:
 * a layout alone does not run for server actions or client-side navigations.
 */
import { notFound } from "next/navigation";
import type { Actor } from "@/lib/audit/log";
import { isActiveAdmin } from "@/lib/admin/roles";
import { getViewer, type Viewer } from "@/lib/web/viewer";

/** The admin looking at the page; notFound() for anyone else. */
export async function requireAdmin(): Promise<Viewer> {
  const viewer = await getViewer();
  if (!viewer || !(await isActiveAdmin(viewer.id))) notFound();
  return viewer;
}

/** The admin as the audit log's actor. */
export async function adminActor(): Promise<Actor> {
  const viewer = await requireAdmin();
  return { source: "web", userId: viewer.id, name: viewer.username };
}

/** For route handlers: the admin, or null (the handler answers 404 itself). */
export async function adminOrNull(): Promise<Viewer | null> {
  const viewer = await getViewer();
  return viewer && (await isActiveAdmin(viewer.id)) ? viewer : null;
}
