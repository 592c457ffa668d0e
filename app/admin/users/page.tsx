import Link from "next/link";
import { Flash, PageHeading, Pager, param, plural, type SearchParams } from "@/components/admin/parts";
import { card, input, muted, secondaryButton } from "@/components/dashboard/ui";
import { searchUsers } from "@/lib/admin/users";
import { requireAdmin } from "@/lib/web/admin/guard";

export const metadata = { title: "Users" };

export default async function AdminUsersPage({ searchParams }: { searchParams: SearchParams }) {
  await requireAdmin();
  const params = await searchParams;
  const query = (param(params, "q") ?? "").slice(0, 64);
  const page = Number.parseInt(param(params, "page") ?? "1", 10) || 1;
  const result = await searchUsers({ query, page });
  const href = (p: number) => `/admin/users?${new URLSearchParams({ ...(query ? { q: query } : {}), page: String(p) })}`;
  return (
    <>
      <PageHeading title="Users">
        {plural(result.total, "user")}
        {query ? ` matching “${query}”` : ""}.
      </PageHeading>
      <Flash notice={param(params, "notice")} error={param(params, "error")} />
      <form role="search" action="/admin/users" className="flex gap-2">
        <label htmlFor="q" className="sr-only">
          Search users by name
        </label>
        <input id="q" name="q" type="search" defaultValue={query} placeholder="Search by name" className={input} maxLength={64} />
        <button type="submit" className={secondaryButton}>
          Search
        </button>
      </form>
      <ul className="space-y-2">
        {result.users.map((user) => (
          <li key={user.id} className={`${card} flex flex-wrap items-center justify-between gap-2`} data-user={user.username}>
            <div className="min-w-0">
              <Link href={`/admin/users/${user.id}`} className="font-medium underline-offset-2 hover:underline">
                {user.username}
              </Link>
              <p className={muted}>
                {user.plan} · {plural(user.uploadCount, "upload")} · joined {user.createdAt.toISOString().slice(0, 10)}
              </p>
            </div>
            <div className="flex gap-1 text-xs">
              {user.role === "admin" && (
                <span className="rounded bg-brand-100 px-2 py-0.5 text-brand-800 dark:bg-brand-500/20 dark:text-brand-300">admin</span>
              )}
              {user.suspended && (
                <span className="rounded bg-red-100 px-2 py-0.5 text-red-800 dark:bg-red-900/40 dark:text-red-300">suspended</span>
              )}
            </div>
          </li>
        ))}
      </ul>
      {result.users.length === 0 && <p className={muted}>No users found.</p>}
      <Pager page={result.page} pageCount={result.pageCount} href={href} />
    </>
  );
}
