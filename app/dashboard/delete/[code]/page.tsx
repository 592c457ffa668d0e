/**
 * The deletion link of uploader configs. GET only shows what would be deleted: chat
 * unfurlers and link prefetchers follow every link, so deleting happens on the form's POST.
 */
import Link from "next/link";
import type { Metadata } from "next";
import { DomainError } from "@/lib/errors";
import { confirmDeleteAction } from "@/lib/web/dashboard/actions";
import { deleteTarget, type DeleteTarget } from "@/lib/web/dashboard/delete-post";
import { requireDashboardUser } from "@/lib/web/dashboard/user";
import { countOf } from "@/components/plural";
import { ErrorNotice } from "@/components/dashboard/notices";
import { errorWords } from "@/lib/web/error-words";

export const metadata: Metadata = { title: "Delete post", robots: { index: false, follow: false } };
export const dynamic = "force-dynamic";

export default async function DeletePostPage({
  params,
  searchParams,
}: {
  params: Promise<{ code: string }>;
  searchParams: Promise<{ error?: string }>;
}) {
  const { code } = await params;
  const error = errorWords((await searchParams).error);
  const viewer = await requireDashboardUser(`/dashboard/delete/${encodeURIComponent(code)}`);
  let target: DeleteTarget | null = null;
  let problem: string | null = null;
  try {
    target = await deleteTarget(viewer.id, code);
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    problem = e.type === "not_found" ? "There is no post with this code in your account (it may be deleted already)." : e.message;
  }

  return (
    <div className="mx-auto max-w-lg space-y-5">
      <h1 className="text-2xl font-semibold tracking-tight">Delete post</h1>
      {(problem || error) && <ErrorNotice>{problem ?? error}</ErrorNotice>}
      {target && (
        <form action={confirmDeleteAction} className="space-y-4 rounded-lg border border-zinc-200 p-5 dark:border-zinc-800">
          <input type="hidden" name="code" value={target.code} />
          <p>
            Delete <strong>{target.title || "Untitled"}</strong> (<span className="font-mono">{target.code}</span>), uploaded{" "}
            {new Date(target.createdAt).toUTCString()}, with its {countOf(target.fileCount, "file")}?
          </p>
          <ul className="list-inside list-disc text-sm text-zinc-600 dark:text-zinc-400">
            {target.fileNames.map((name) => (
              <li key={name}>{name}</li>
            ))}
          </ul>
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            The share link and the direct file links stop working. This cannot be undone.
          </p>
          <div className="flex flex-wrap gap-3">
            <button type="submit" className="rounded-md bg-red-600 px-4 py-2 text-sm font-medium text-white hover:bg-red-700">
              Delete post
            </button>
            <Link
              href="/dashboard"
              className="rounded-md border border-zinc-300 px-4 py-2 text-sm font-medium hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
            >
              Keep it
            </Link>
          </div>
        </form>
      )}
      {!target && (
        <Link href="/dashboard" className="text-sm text-brand-600 underline dark:text-brand-400">
          Back to the dashboard
        </Link>
      )}
    </div>
  );
}
