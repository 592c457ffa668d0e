/**
 * Deleting an account (docs/account-deletion.md). The user row is the journal: step one marks it
 * deleting and removes every way in, in one transaction, so nothing new starts; step two removes the
 * rest, each part idempotent, and a process dying in it leaves a marked row the recovery sweep finishes.
 */
import { recordAudit, type Actor } from "@/lib/audit/log";
import { confirmOwner, requiresSecondFactor, type Confirmation } from "@/lib/auth/factors/two-factor";
import { requireRecentConfirmation } from "@/lib/auth/confirmation";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { ownerTag, reclaimable } from "@/lib/files/owner-tag";
import { erasePostFilesFirst } from "@/lib/posts/erase";
import { postInclude } from "@/lib/posts/record";
import { removeSocialTraces } from "@/lib/social/leave";
import { storage } from "@/lib/storage";
import { removeResumable } from "@/lib/uploads/resumable";
import { teamSubject, userSubject } from "@/lib/usage/window";

/** Posts loaded and erased per round: bounded memory whatever the account's size. */
const BATCH = 50;

export interface DeletionOptions {
  /** Delete owned teams even when others are members (their posts go too); the operator's delete always does. */
  deleteTeams: boolean;
}

export interface DeletedAccount {
  id: string;
  username: string;
  posts: number;
  teams: number;
}

interface SharedTeam {
  id: string;
  name: string;
  members: number;
}

async function sharedTeamsOf(userId: string): Promise<SharedTeam[]> {
  const teams = await db().team.findMany({
    where: { ownerId: userId },
    select: { id: true, name: true, _count: { select: { members: { where: { userId: { not: userId } } } } } },
    orderBy: { createdAt: "asc" },
  });
  return teams.filter((t) => t._count.members > 0).map((t) => ({ id: t.id, name: t.name, members: t._count.members }));
}

/** The owner's delete: password or a second factor; an account with neither confirms by a sign-in within 10 minutes. */
export async function deleteOwnAccount(
  userId: string,
  sessionId: string | null,
  proof: Confirmation,
  ip: string,
  options: DeletionOptions,
): Promise<DeletedAccount> {
  const user = await db().user.findUnique({ where: { id: userId }, select: { passwordHash: true, displayUsername: true } });
  if (!user) throw new DomainError("not_found", "No such account.");
  if (!user.passwordHash && !(await requiresSecondFactor(userId))) await requireRecentConfirmation(userId, sessionId);
  else await confirmOwner(userId, proof, ip);
  return deleteAccount(userId, { source: "web", userId, name: user.displayUsername }, options, { self: true });
}

/** Refused (forbidden, naming the teams) while the user owns a team with other members, unless `deleteTeams`. */
export async function deleteAccount(
  userId: string,
  actor: Actor,
  options: DeletionOptions,
  detail: Record<string, unknown> = {},
): Promise<DeletedAccount> {
  const user = await db().user.findUnique({ where: { id: userId }, select: { displayUsername: true, deletingAt: true } });
  if (!user) throw new DomainError("not_found", `No user '${userId}'.`);
  if (!user.deletingAt && !options.deleteTeams) {
    const shared = await sharedTeamsOf(userId);
    if (shared.length) {
      const names = shared.map((t) => `'${t.name}'`).join(", ");
      throw new DomainError(
        "forbidden",
        `You own ${shared.length === 1 ? "a team" : "teams"} with other members (${names}). Confirm that ${shared.length === 1 ? "it" : "they"} and ${shared.length === 1 ? "its" : "their"} posts are deleted too.`,
        undefined,
        { teams: shared.map((t) => ({ id: t.id, name: t.name, members: t.members })) },
      );
    }
  }
  if (!user.deletingAt) {
    await markDeleting(userId);
    await recordAudit(actor, "user.delete", { type: "user", id: userId, label: user.displayUsername }, detail);
  } else {
    await db().user.updateMany({ where: { id: userId }, data: { deletingBy: ownerTag() } });
  }
  try {
    return { id: userId, username: user.displayUsername, ...(await finishDeletion(userId)) };
  } catch (error) {
    // The sweep of this very process would wait for it to die: hand the row over to any sweep now.
    await db()
      .user.updateMany({ where: { id: userId }, data: { deletingBy: null } })
      .catch(() => undefined);
    throw error;
  }
}

async function markDeleting(userId: string): Promise<void> {
  const where = { userId };
  await db().$transaction([
    db().user.update({
      where: { id: userId },
      data: { deletingAt: new Date(), deletingBy: ownerTag(), passwordHash: null },
      select: { id: true },
    }),
    db().relaySession.deleteMany({ where }),
    db().app.deleteMany({ where }),
    db().passkey.deleteMany({ where }),
    db().totpFactor.deleteMany({ where }),
    db().recoveryCode.deleteMany({ where }),
    db().oAuthAccount.deleteMany({ where }),
    db().passwordReset.deleteMany({ where }),
    db().emailChange.deleteMany({ where }),
    db().webhook.deleteMany({ where }),
  ]);
}

/** Step two (also the sweep's); each part may run again. */
async function finishDeletion(userId: string): Promise<{ posts: number; teams: number }> {
  let posts = 0;
  const teams = await db().team.findMany({ where: { ownerId: userId }, select: { id: true } });
  for (const team of teams) {
    // The key first: nobody uploads into a team that is going.
    await db().team.updateMany({ where: { id: team.id }, data: { keyHash: null, keyHint: null } });
    posts += await erasePosts({ teamId: team.id });
    await removeUsageRows(teamSubject(team.id));
    await db().team.deleteMany({ where: { id: team.id } });
  }
  // Team posts of teams owned by others stay with their team (the author is cleared with the row).
  posts += await erasePosts({ userId, teamId: null });
  for (const upload of await db().tusUpload.findMany({ where: { userId }, select: { id: true } })) await removeResumable(upload.id);
  await removeSocialTraces(userId);
  // Avatars and banners: u/<user id>/ (lib/users/images.ts).
  await storage().deletePrefix(`u/${userId}/`);
  await removeUsageRows(userSubject(userId));
  await db().user.deleteMany({ where: { id: userId } });
  return { posts, teams: teams.length };
}

async function erasePosts(where: { userId?: string; teamId: string | null }): Promise<number> {
  let erased = 0;
  for (;;) {
    const batch = await db().post.findMany({ where, include: postInclude, orderBy: { id: "asc" }, take: BATCH });
    for (const post of batch) await erasePostFilesFirst(post);
    erased += batch.length;
    if (batch.length < BATCH) return erased;
  }
}

async function removeUsageRows(subject: string): Promise<void> {
  await db().$transaction([
    db().usageDay.deleteMany({ where: { subject } }),
    db().usageHour.deleteMany({ where: { subject } }),
    db().usageWindow.deleteMany({ where: { subject } }),
  ]);
}

export interface AccountSweep {
  accounts: number;
}

/** The recovery sweep's part (docs/crash-recovery.md): each dead owner's row is claimed by one conditional update, so one instance finishes it. */
export async function sweepDeletingAccounts(orphanAgeMs: number): Promise<AccountSweep> {
  const rows = await db().user.findMany({ where: { deletingAt: { not: null } }, select: { id: true, deletingAt: true, deletingBy: true } });
  let accounts = 0;
  for (const row of rows) {
    if (row.deletingBy && !reclaimable(row.deletingBy, row.deletingAt?.getTime() ?? 0, orphanAgeMs)) continue;
    const { count } = await db().user.updateMany({ where: { id: row.id, deletingBy: row.deletingBy }, data: { deletingBy: ownerTag() } });
    if (count !== 1) continue;
    try {
      await finishDeletion(row.id);
      accounts++;
    } catch (error) {
      await db()
        .user.updateMany({ where: { id: row.id }, data: { deletingBy: null } })
        .catch(() => undefined);
      throw error;
    }
  }
  return { accounts };
}
