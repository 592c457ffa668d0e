import Link from "next/link";
import { notFound } from "next/navigation";
import { Flash, PageHeading, param, plural, type SearchParams } from "@/components/admin/parts";
import { userDetail } from "@/lib/admin/users";
import { isDomainError } from "@/lib/errors";
import { requireAdmin } from "@/lib/web/admin/guard";
import { AccountControls } from "./account-controls";
import { UserPosts } from "./user-posts";

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
  return (
    <>
      <PageHeading title={user.username}>
        {user.email ?? "No email"} · joined {user.createdAt.toISOString().slice(0, 10)} · {plural(user.postCount, "post")}
      </PageHeading>
      <Flash notice={param(query, "notice")} error={param(query, "error")} />
      <AccountControls user={user} here={here} self={viewer.id === user.id} />
      <UserPosts user={user} here={here} />
      <Link href="/admin/users" className="text-sm underline">
        All users
      </Link>
    </>
  );
}
