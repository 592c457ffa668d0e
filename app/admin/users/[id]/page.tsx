import Link from "next/link";
import { notFound } from "next/navigation";
import { Confirm } from "@/components/admin/confirm";
import { Back, Flash, PageHeading, param, plural, type SearchParams } from "@/components/admin/parts";
import { card, dangerButton, formatBytes, input, label, muted, primaryButton, secondaryButton } from "@/components/dashboard/ui";
import { ROLES } from "@/lib/admin/roles";
import { userDetail } from "@/lib/admin/users";
import { isDomainError } from "@/lib/errors";
import { PLANS } from "@/lib/plans";
import { requireAdmin } from "@/lib/web/admin/guard";
import {
  deletePostAction,
  moderatePostAction,
  releasePostAction,
  setPlanAction,
  setPriorityAction,
  setQuotaAction,
  setRoleAction,
  suspendAction,
  unsuspendAction,
} from "@/lib/web/admin/actions";

export const metadata = { title: "User" };

async function load(id: string) {
  try {
    return await userDetail(id);
  } catch (error) {
    if (isDomainError(error) && error.type === "not_found") notFound();
    throw error;
  }
}

export default async function AdminUserPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: SearchParams }) {
  const viewer = await requireAdmin();
  const { id } = await params;
  const query = await searchParams;
  const user = await load(id);
  const here = `/admin/users/${user.id}`;
  const self = viewer.id === user.id;
  return (
    <>
      <PageHeading title={user.username}>
        {user.email ?? "No email"} · joined {user.createdAt.toISOString().slice(0, 10)} · {plural(user.postCount, "post")}
      </PageHeading>
      <Flash notice={param(query, "notice")} error={param(query, "error")} />
      <section className={`${card} grid gap-4 sm:grid-cols-2`} aria-label="Account">
        <form action={setPlanAction} className="space-y-1">
          <Back path={here} />
          <input type="hidden" name="user" value={user.id} />
          <label htmlFor="plan" className={label}>
            Plan
          </label>
          <div className="flex gap-2">
            <select id="plan" name="plan" defaultValue={user.plan} className={input}>
              {PLANS.map((p) => (
                <option key={p}>{p}</option>
              ))}
            </select>
            <button type="submit" className={secondaryButton}>
              Set plan
            </button>
          </div>
        </form>
        <form action={setRoleAction} className="space-y-1">
          <Back path={here} />
          <input type="hidden" name="user" value={user.id} />
          <label htmlFor="role" className={label}>
            Role
          </label>
          <div className="flex gap-2">
            <select id="role" name="role" defaultValue={user.role} className={input} disabled={self}>
              {ROLES.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
            <button type="submit" className={secondaryButton} disabled={self}>
              Set role
            </button>
          </div>
          {self && <p className={muted}>You cannot change your own role.</p>}
        </form>
        <form action={setQuotaAction} className="space-y-1">
          <Back path={here} />
          <input type="hidden" name="user" value={user.id} />
          <label htmlFor="quota" className={label}>
            Weekly quota
          </label>
          <div className="flex gap-2">
            <input
              id="quota"
              name="quota"
              className={input}
              placeholder="Plan default"
              defaultValue={user.quotaOverride === null ? "" : String(user.quotaOverride)}
              maxLength={32}
            />
            <button type="submit" className={secondaryButton}>
              Set quota
            </button>
          </div>
          <p className={muted}>
            Now {user.quotaOverride === null ? "the plan's quota" : formatBytes(user.quotaOverride)}. Bytes, or 500MB, 10GB; empty for the
            plan&apos;s.
          </p>
        </form>
        <form action={setPriorityAction} className="space-y-1">
          <Back path={here} />
          <input type="hidden" name="user" value={user.id} />
          <label htmlFor="minutes" className={label}>
            Priority minutes
          </label>
          <div className="flex gap-2">
            <input
              id="minutes"
              name="minutes"
              inputMode="numeric"
              className={input}
              defaultValue={user.priorityMinutes ?? ""}
              required
              pattern="\d+"
            />
            <button type="submit" className={secondaryButton}>
              Set minutes
            </button>
          </div>
        </form>
        <form action={user.suspended ? unsuspendAction : suspendAction} className="flex items-center gap-3 sm:col-span-2">
          <Back path={here} />
          <input type="hidden" name="user" value={user.id} />
          <span className={muted}>
            {user.suspended ? `Suspended since ${user.suspendedAt?.toISOString().slice(0, 16).replace("T", " ")} UTC.` : "Active."}
          </span>
          {user.suspended ? (
            <button type="submit" className={primaryButton}>
              Unsuspend
            </button>
          ) : (
            <button type="submit" className={dangerButton} disabled={self}>
              Suspend
            </button>
          )}
        </form>
      </section>
      <section aria-label="Posts" className="space-y-2">
        <h2 className="text-lg font-semibold">Posts</h2>
        {user.posts.length === 0 && <p className={muted}>No posts.</p>}
        <ul className="space-y-2">
          {user.posts.map((post) => (
            <li key={post.code} className={`${card} flex flex-wrap items-center justify-between gap-2`} data-post={post.code}>
              <div className="min-w-0">
                <p className="truncate font-medium">{post.title ?? post.code}</p>
                <p className={muted}>
                  {post.code} · {post.privacy} · {plural(post.fileCount, "file")} · {plural(post.viewCount, "view")}
                  {post.moderated && " · under moderation"}
                  {post.restricted && " · restricted"}
                </p>
              </div>
              <div className="flex gap-2">
                <form action={post.moderated ? releasePostAction : moderatePostAction}>
                  <Back path={here} />
                  <input type="hidden" name="code" value={post.code} />
                  <button
                    type="submit"
                    className={secondaryButton}
                    aria-label={`${post.moderated ? "Release" : "Moderate"} post ${post.code}`}
                  >
                    {post.moderated ? "Release" : "Moderate"}
                  </button>
                </form>
                <Confirm label="Delete" confirm={`Delete ${post.code} for good`} action={deletePostAction}>
                  <Back path={here} />
                  <input type="hidden" name="code" value={post.code} />
                </Confirm>
              </div>
            </li>
          ))}
        </ul>
        {user.postCount > user.posts.length && <p className={muted}>The newest {user.posts.length} are shown.</p>}
      </section>
      <Link href="/admin/users" className="text-sm underline">
        All users
      </Link>
    </>
  );
}
