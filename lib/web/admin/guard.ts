/**
 * Who may use the console (docs/admin.md): anyone else gets a 404, so it is not advertised. Every
 * page, route and action calls this itself: a layout does not run for server actions.
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

export async function adminActor(): Promise<Actor> {
  const viewer = await requireAdmin();
  return { source: "web", userId: viewer.id, name: viewer.username };
}

/** For route handlers: the admin, or null (the handler answers 404 itself). */
export async function adminOrNull(): Promise<Viewer | null> {
  const viewer = await getViewer();
  return viewer && (await isActiveAdmin(viewer.id)) ? viewer : null;
}
