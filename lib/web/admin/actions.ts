"use server";
/**
 * The console's server actions (docs/admin.md): admin role first (404 otherwise), then the
 * lib/admin verb, which writes the audit entry. Plain form posts, so the console needs no JavaScript.
 */
import { redirect } from "next/navigation";
import { z } from "zod";
import { createInvite, INVITE_MAX_DAYS, revokeInvite } from "@/lib/admin/invites";
import { adminDeleteLink } from "@/lib/admin/links";
import { quarantinePost, releasePost, removePost } from "@/lib/admin/posts";
import { decideReport } from "@/lib/admin/reports";
import { ROLES, setRole } from "@/lib/admin/roles";
import {
  changePlan,
  changePriorityMinutes,
  changeQuota,
  deleteUserAccount,
  issueUserResetLink,
  suspendAccount,
  unsuspendAccount,
} from "@/lib/admin/users";
import { DomainError } from "@/lib/errors";
import { requireUser } from "@/lib/users/accounts";
import { parseBytes, PLANS } from "@/lib/plans";
import { adminActor } from "./guard";

const ref = z.string().trim().min(1).max(64);
/** Where to come back to: a console path only, never another site. */
const back = z
  .string()
  .regex(/^\/admin(\/[^/\\]*)*(\?[^\\]*)?$/)
  .catch("/admin");

function fields<S extends z.ZodRawShape>(form: FormData, shape: S): z.output<z.ZodObject<S>> {
  const result = z.object(shape).safeParse(Object.fromEntries(form.entries()));
  if (!result.success)
    throw new DomainError("invalid_request", result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
  return result.data;
}

function withMessage(path: string, key: "notice" | "error", message: string): string {
  const url = new URL(path, "http://console.invalid");
  url.searchParams.delete("notice");
  url.searchParams.delete("error");
  url.searchParams.set(key, message);
  return `${url.pathname}${url.search}`;
}

async function act(form: FormData, work: () => Promise<string>): Promise<never> {
  // Before anything else: a non-admin learns nothing, not even whether the input was valid.
  await adminActor();
  const path = back.parse(form.get("back"));
  let target: string;
  try {
    target = withMessage(path, "notice", await work());
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    target = withMessage(path, "error", error.message);
  }
  // redirect() throws by design, so it stays outside the try.
  redirect(target);
}

export async function setPlanAction(form: FormData): Promise<void> {
  await act(form, async () => {
    const { user, plan } = fields(form, { user: ref, plan: z.enum(PLANS) });
    const account = await changePlan(await adminActor(), user, plan);
    return `${account.displayUsername} is now on ${plan}.`;
  });
}

export async function suspendAction(form: FormData): Promise<void> {
  await act(form, async () => {
    const account = await suspendAccount(await adminActor(), fields(form, { user: ref }).user);
    return `${account.displayUsername} is suspended.`;
  });
}

export type ResetLinkState = { link: string; username: string } | { error: string } | null;

/** A one-time reset link (docs/web-auth.md, "Passwords"), shown once in the page body, never in a `?notice=` URL that logs keep (issue 39 §4). */
export async function resetLinkAction(_previous: ResetLinkState, form: FormData): Promise<ResetLinkState> {
  const actor = await adminActor();
  try {
    const { user, url } = await issueUserResetLink(actor, fields(form, { user: ref }).user);
    return { link: url, username: user.displayUsername };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { error: error.message };
  }
}

/** Deletes the account (docs/account-deletion.md); the username typed again must match. */
export async function deleteUserAction(form: FormData): Promise<void> {
  await act(form, async () => {
    const { user, confirm } = fields(form, { user: ref, confirm: z.string().trim().max(64) });
    const actor = await adminActor();
    const target = (await requireUser(user)).displayUsername;
    if (confirm.toLowerCase() !== target.toLowerCase())
      throw new DomainError("invalid_request", `Type the username, ${target}, to delete the account.`);
    const done = await deleteUserAccount(actor, user);
    const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
    return `${done.username} is deleted (${count(done.posts, "post")}${done.teams ? `, ${count(done.teams, "team")}` : ""}).`;
  });
}

export async function unsuspendAction(form: FormData): Promise<void> {
  await act(form, async () => {
    const account = await unsuspendAccount(await adminActor(), fields(form, { user: ref }).user);
    return `${account.displayUsername} is no longer suspended.`;
  });
}

/** Quota in bytes or with a unit (500MB, 10GB); empty returns to the plan's quota. */
export async function setQuotaAction(form: FormData): Promise<void> {
  await act(form, async () => {
    const { user, quota } = fields(form, { user: ref, quota: z.string().trim().max(32) });
    const bytes = quota === "" ? null : parseBytes(quota);
    if (quota !== "" && (bytes === null || !Number.isSafeInteger(bytes))) {
      throw new DomainError("invalid_request", "A quota is a number of bytes, such as 1073741824 or 10GB, or empty for the plan's.");
    }
    const account = await changeQuota(await adminActor(), user, bytes);
    return account.quotaOverride === null
      ? `${account.displayUsername} has the plan's quota again.`
      : `${account.displayUsername}'s weekly quota is set.`;
  });
}

export async function setPriorityAction(form: FormData): Promise<void> {
  await act(form, async () => {
    const { user, minutes } = fields(form, {
      user: ref,
      minutes: z
        .string()
        .trim()
        .regex(/^\d{1,10}$/, "a whole number")
        .transform(Number),
    });
    const account = await changePriorityMinutes(await adminActor(), user, minutes);
    return `${account.displayUsername} has ${minutes} priority minutes.`;
  });
}

export async function setRoleAction(form: FormData): Promise<void> {
  await act(form, async () => {
    const { user, role } = fields(form, { user: ref, role: z.enum(ROLES) });
    const changed = await setRole(await adminActor(), user, role);
    return `${changed.username} is now ${role === "admin" ? "an admin" : "a user"}.`;
  });
}

export async function decideReportAction(form: FormData): Promise<void> {
  await act(form, async () => {
    const { report, outcome } = fields(form, { report: ref, outcome: z.enum(["resolved", "dismissed"]) });
    await decideReport(await adminActor(), report, outcome);
    return outcome === "resolved" ? "Report resolved." : "Report dismissed.";
  });
}

export async function moderatePostAction(form: FormData): Promise<void> {
  await act(form, async () => {
    const post = await quarantinePost(await adminActor(), fields(form, { code: ref }).code);
    return `Post ${post.code} is under moderation.`;
  });
}

export async function releasePostAction(form: FormData): Promise<void> {
  await act(form, async () => {
    const post = await releasePost(await adminActor(), fields(form, { code: ref }).code);
    return `Post ${post.code} is released.`;
  });
}

export async function deletePostAction(form: FormData): Promise<void> {
  await act(form, async () => {
    const { code } = fields(form, { code: ref });
    await removePost(await adminActor(), code);
    return `Post ${code} is deleted.`;
  });
}

export async function createInviteAction(form: FormData): Promise<void> {
  await act(form, async () => {
    const { days } = fields(form, { days: z.coerce.number().int().min(1).max(INVITE_MAX_DAYS) });
    const invite = await createInvite(await adminActor(), { days });
    return `Invite ${invite.code} created.`;
  });
}

export async function revokeInviteAction(form: FormData): Promise<void> {
  await act(form, async () => {
    const { code } = fields(form, { code: ref });
    await revokeInvite(await adminActor(), code);
    return `Invite ${code} revoked.`;
  });
}

export async function deleteLinkAction(form: FormData): Promise<void> {
  await act(form, async () => {
    const { code } = fields(form, { code: ref });
    await adminDeleteLink(await adminActor(), code);
    return `Short link ${code} is deleted.`;
  });
}
