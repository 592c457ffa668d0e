/** The console's user management (docs/admin.md): each verb is the CLI's account function plus an audit entry. */
import { db } from "@/lib/db/client";
import { afterPosition, keysetPage, newestFirst, type Page, type Position } from "@/lib/db/paging";
import { DomainError } from "@/lib/errors";
import type { Plan } from "@/lib/plans";
import { requireUser, setPlan, setPriorityMinutes, setQuotaOverride, suspendUser, unsuspendUser, type Account } from "@/lib/users/accounts";
import { issueResetLink } from "@/lib/auth/passwords";
import { deleteAccount, type DeletedAccount } from "@/lib/accounts/delete";
import { recordAudit, type Actor } from "@/lib/audit/log";
import type { Role } from "./roles";

export const USERS_PAGE_SIZE = 25;

export interface AdminUserRow {
  id: string;
  username: string;
  email: string | null;
  plan: string;
  role: Role;
  suspended: boolean;
  uploadCount: number;
  createdAt: Date;
}

export interface UserSearch {
  users: AdminUserRow[];
  total: number;
  page: number;
  pageCount: number;
}

const rowSelect = {
  id: true,
  displayUsername: true,
  email: true,
  plan: true,
  role: true,
  suspended: true,
  uploadCount: true,
  createdAt: true,
} as const;

type UserRow = {
  id: string;
  displayUsername: string;
  email: string | null;
  plan: string;
  role: string;
  suspended: boolean;
  uploadCount: number;
  createdAt: Date;
};

const toRow = (row: UserRow): AdminUserRow => ({
  id: row.id,
  username: row.displayUsername,
  email: row.email,
  plan: row.plan,
  role: row.role === "admin" ? "admin" : "user",
  suspended: row.suspended,
  uploadCount: row.uploadCount,
  createdAt: row.createdAt,
});

/**
 * Users whose name contains `query`, by page numbers. Raw SQL: Prisma's `contains` leaves `_`
 * and `%` as wildcards, and `_` is common in usernames (stored lower-case, so LIKE is enough).
 */
export async function searchUsers(input: { query?: string; page?: number; pageSize?: number }): Promise<UserSearch> {
  const query = input.query?.trim().toLowerCase() ?? "";
  const pageSize = input.pageSize ?? USERS_PAGE_SIZE;
  const pattern = `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const total = query
    ? Number(
        (await db().$queryRaw<{ n: bigint | number }[]>`SELECT COUNT(*) AS n FROM "User" WHERE "username" LIKE ${pattern} ESCAPE '\\'`)[0]
          .n,
      )
    : await db().user.count();
  const pageCount = Math.max(1, Math.ceil(total / pageSize));
  const page = Math.min(Math.max(1, Math.floor(input.page ?? 1)), pageCount);
  const offset = (page - 1) * pageSize;
  const order = [{ createdAt: "desc" }, { id: "desc" }] as const;
  let rows: UserRow[];
  if (query) {
    const ids = await db().$queryRaw<
      { id: string }[]
    >`SELECT "id" FROM "User" WHERE "username" LIKE ${pattern} ESCAPE '\\' ORDER BY "createdAt" DESC, "id" DESC LIMIT ${pageSize} OFFSET ${offset}`;
    rows = await db().user.findMany({ where: { id: { in: ids.map((r) => r.id) } }, select: rowSelect, orderBy: [...order] });
  } else {
    rows = await db().user.findMany({ select: rowSelect, orderBy: [...order], skip: offset, take: pageSize });
  }
  return { users: rows.map(toRow), total, page, pageCount };
}

export interface AdminPostRow {
  code: string;
  title: string | null;
  privacy: string;
  moderated: boolean;
  restricted: boolean;
  fileCount: number;
  viewCount: number;
  createdAt: Date;
}

export interface AdminUserDetail extends AdminUserRow {
  quotaOverride: number | null;
  priorityMinutes: number | null;
  suspendedAt: Date | null;
  posts: AdminPostRow[];
  postCount: number;
}

export async function userDetail(userId: string, postLimit = 50): Promise<AdminUserDetail> {
  const row = await db().user.findUnique({
    where: { id: userId },
    select: { ...rowSelect, quotaOverride: true, priorityMinutes: true, suspendedAt: true },
  });
  if (!row) throw new DomainError("not_found", `No user '${userId}'.`);
  const [posts, postCount] = await Promise.all([
    db().post.findMany({
      where: { userId },
      select: {
        code: true,
        title: true,
        privacy: true,
        moderated: true,
        restricted: true,
        fileCount: true,
        viewCount: true,
        createdAt: true,
      },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: postLimit,
    }),
    db().post.count({ where: { userId } }),
  ]);
  return {
    ...toRow(row),
    quotaOverride: row.quotaOverride === null ? null : Number(row.quotaOverride),
    priorityMinutes: row.priorityMinutes,
    suspendedAt: row.suspendedAt,
    posts,
    postCount,
  };
}

const target = (user: Account) => ({ type: "user" as const, id: user.id, label: user.displayUsername });

export async function changePlan(actor: Actor, userRef: string, plan: Plan): Promise<Account> {
  const user = await setPlan((await requireUser(userRef)).id, plan);
  await recordAudit(actor, "user.plan", target(user), { plan });
  return user;
}

/** An admin cannot suspend themselves on the web (they would lose the console mid-action). */
export async function suspendAccount(actor: Actor, userRef: string): Promise<Account> {
  const found = await requireUser(userRef);
  if (actor.userId === found.id) throw new DomainError("forbidden", "You cannot suspend yourself.");
  const user = await suspendUser(found.id);
  await recordAudit(actor, "user.suspend", target(user));
  return user;
}

export async function unsuspendAccount(actor: Actor, userRef: string): Promise<Account> {
  const user = await unsuspendUser((await requireUser(userRef)).id);
  await recordAudit(actor, "user.unsuspend", target(user));
  return user;
}

export async function changeQuota(actor: Actor, userRef: string, bytes: number | null): Promise<Account> {
  const user = await setQuotaOverride((await requireUser(userRef)).id, bytes);
  await recordAudit(actor, "user.quota", target(user), { quota: bytes });
  return user;
}

export async function changePriorityMinutes(actor: Actor, userRef: string, minutes: number): Promise<Account> {
  const user = await setPriorityMinutes((await requireUser(userRef)).id, minutes);
  await recordAudit(actor, "user.priority", target(user), { priority_minutes: minutes });
  return user;
}

/** A one-time reset link for the operator to hand over; the audit entry never holds the link itself. */
export async function issueUserResetLink(actor: Actor, userRef: string): Promise<{ user: Account; url: string; expiresAt: Date }> {
  const user = await requireUser(userRef);
  const { url, expiresAt } = await issueResetLink(user.id, actor.userId ?? `${actor.source}:${actor.name}`);
  await recordAudit(actor, "user.reset_link", target(user), { expires_at: expiresAt.toISOString() });
  return { user, url, expiresAt };
}

/** Teams it owns included; not one's own account on the web. Audited before anything goes, so the entry stays. */
export async function deleteUserAccount(actor: Actor, userRef: string): Promise<DeletedAccount> {
  const user = await requireUser(userRef);
  if (actor.userId === user.id) throw new DomainError("forbidden", "You cannot delete your own account here; use your settings.");
  return deleteAccount(user.id, actor, { deleteTeams: true });
}

export interface UserListFilter {
  role?: Role;
  suspended?: boolean;
  plan?: Plan;
  limit: number;
  after?: Position;
}

export async function listUsers(filter: UserListFilter): Promise<Page<AdminUserRow>> {
  const where = {
    ...(filter.role ? { role: filter.role } : {}),
    ...(filter.suspended === undefined ? {} : { suspended: filter.suspended }),
    ...(filter.plan ? { plan: filter.plan } : {}),
    ...afterPosition("createdAt", filter.after),
  };
  const page = await keysetPage(
    filter.limit,
    (take) => db().user.findMany({ where, select: rowSelect, orderBy: newestFirst("createdAt"), take }),
    (row) => ({ t: row.createdAt.getTime(), id: row.id }),
  );
  return { ...page, items: page.items.map(toRow) };
}
