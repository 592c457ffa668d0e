/**
 * Deleting an account (issue 27 §2, docs/account-deletion.md): by its owner from the
 * settings (password or second factor) or by an operator (console, `admin user delete`).
 *
 * The user row is the journal. Step one, in one transaction: the row is marked deleting
 * (`deletingAt`, and `deletingBy`, the owner tag of the process doing it) and every way in
 * goes at once (web and Relay sessions, app keys, passkeys, TOTP and recovery codes, the
 * password, OAuth links, reset and email-change links), so nothing new is started on the
 * account. Then the audit entry. Step two removes everything else, each part idempotent:
 * teams it owns, its posts (stored files first, then rows: erasePostFilesFirst), resumable
 * uploads, its likes, comments and follows (counters of others kept right), avatar and banner,
 * quota rows, and last the row itself (whatever is left cascades: folders, short links,
 * webhooks, blocks, notifications). A process that dies in step two leaves a marked row: the
 * recovery sweep (sweepDeletingAccounts) takes it over once its owner is dead and runs step two again.
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
  /**
   * Delete the teams the user owns even when others are members (their posts go too). The
   * owner says so explicitly; the operator's delete always does.
   */
  deleteTeams: boolean;
}

export interface DeletedAccount {
  id: string;
  username: string;
  /** Posts erased (the user's own and those of the teams they owned). */
  posts: number;
  teams: number;
}

/** A team the user owns that someone else is a member of. */
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

/**
 * The owner's delete: the password, or a TOTP or recovery code (confirmOwner, as turning
 * two-factor sign-in off). An account with neither (GitHub, OIDC without two-factor) confirms
 * by having signed in within the last 10 minutes (lib/auth/confirmation.ts).
 */
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

/**
 * Deletes the account and everything of it; the audit entry (`user.delete`) stays. Refused
 * (forbidden, naming the teams) while the user owns a team with other members, unless
 * `deleteTeams`. Deleting an account already marked deleting finishes it.
 */
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

/** Step one: the mark, and every way in gone, in one transaction. */
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

/** Step two (also the sweep's): everything else, then the row. Each part may run again. */
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
  /** Deletions of processes that died, finished by this sweep. */
  accounts: number;
}

/**
 * The recovery sweep's part (docs/crash-recovery.md): every row marked deleting whose owner
 * is dead (or unknown and older than the orphan age, or handed over after a failure) is
 * claimed by one conditional update, so of two sweeping instances one finishes it.
 */
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
