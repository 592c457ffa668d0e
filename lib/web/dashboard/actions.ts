"use server";
/** Server actions of the dashboard: the next-auth session authenticates, never an argument. */
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { DomainError } from "@/lib/errors";
import { attempt, type ActionResult } from "./result";
import { actingUserId, confirmedActingUserId } from "./user";
import {
  createDashboardApp,
  regenerateDashboardApp,
  revokeDashboardApp,
  setDashboardGalleryAccess,
  type AppView,
  type IssuedAppView,
} from "./apps";
import { createDashboardTeam, deleteDashboardTeamKey, regenerateDashboardTeamKey, type IssuedTeamKey } from "./teams";
import { confirmDelete } from "./delete-post";

const id = z.string().min(1).max(64);

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new DomainError("invalid_request", result.error.issues[0]?.message ?? "Invalid input.");
  return result.data;
}

export async function createAppAction(name: string, galleryAccess: boolean): Promise<ActionResult<IssuedAppView>> {
  return attempt(async () => {
    const input = parse(z.object({ name: z.string().max(200), galleryAccess: z.boolean() }), { name, galleryAccess });
    const issued = await createDashboardApp(await confirmedActingUserId(), input.name, input.galleryAccess);
    revalidatePath("/dashboard/apps");
    return issued;
  });
}

export async function regenerateAppAction(appId: string): Promise<ActionResult<IssuedAppView>> {
  return attempt(async () => regenerateDashboardApp(await confirmedActingUserId(), parse(id, appId)));
}

export async function revokeAppAction(appId: string): Promise<ActionResult<AppView>> {
  return attempt(async () => revokeDashboardApp(await actingUserId(), parse(id, appId)));
}

export async function setGalleryAccessAction(appId: string, on: boolean): Promise<ActionResult<AppView>> {
  return attempt(async () => setDashboardGalleryAccess(await actingUserId(), parse(id, appId), parse(z.boolean(), on)));
}

export async function createTeamAction(name: string): Promise<ActionResult<IssuedTeamKey>> {
  return attempt(async () => {
    const issued = await createDashboardTeam(await confirmedActingUserId(), parse(z.string().max(200), name));
    revalidatePath("/dashboard/teams");
    return issued;
  });
}

export async function regenerateTeamKeyAction(teamId: string): Promise<ActionResult<IssuedTeamKey>> {
  return attempt(async () => regenerateDashboardTeamKey(await confirmedActingUserId(), parse(id, teamId)));
}

export async function deleteTeamKeyAction(teamId: string): Promise<ActionResult<null>> {
  return attempt(async () => {
    await deleteDashboardTeamKey(await actingUserId(), parse(id, teamId));
    revalidatePath("/dashboard/teams");
    return null;
  });
}

/** The form of /dashboard/delete/{code}: a POST (never a GET) deletes the post. */
export async function confirmDeleteAction(formData: FormData): Promise<void> {
  const code = parse(z.string().min(1).max(64), formData.get("code"));
  const outcome = await attempt(async () => confirmDelete(await actingUserId(), code));
  // redirect() throws by design, so it stays outside attempt().
  if (!outcome.ok) redirect(`/dashboard/delete/${encodeURIComponent(code)}?error=${encodeURIComponent(outcome.type)}`);
  redirect(`/dashboard?deleted=${encodeURIComponent(code)}`);
}
