import Link from "next/link";
import { notFound } from "next/navigation";
import { DomainError } from "@/lib/errors";
import { dashboardTeamGallery, type TeamGalleryView } from "@/lib/web/dashboard/teams";
import { requireDashboardUser } from "@/lib/web/dashboard/user";
import { countOf } from "@/components/plural";

export const metadata = { title: "Team gallery" };

export default async function TeamGalleryPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const viewer = await requireDashboardUser(`/dashboard/teams/${id}`);
  let gallery: TeamGalleryView;
  try {
    gallery = await dashboardTeamGallery(viewer.id, id);
  } catch (error) {
    if (error instanceof DomainError && error.type === "not_found") notFound();
    throw error;
  }
  return (
    <div className="space-y-6">
      <div className="space-y-1">
        <Link href="/dashboard/teams" className="text-sm text-brand-600 underline dark:text-brand-400">
          ← Teams
        </Link>
        <h1 className="text-2xl font-semibold tracking-tight">{gallery.name}</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Team gallery · subscription {gallery.status}. Posts uploaded with the team key appear here, private to the team.
        </p>
      </div>
      {gallery.posts.length === 0 ? (
        <p className="rounded-lg border border-dashed border-zinc-300 p-8 text-center text-sm text-zinc-600 dark:border-zinc-700 dark:text-zinc-400">
          No team posts yet.
        </p>
      ) : (
        <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-4" aria-label="Team posts">
          {gallery.posts.map((post) => (
            <li key={post.code} className="overflow-hidden rounded-lg border border-zinc-200 dark:border-zinc-800">
              <a href={`/p/${post.code}`} className="block">
                <div className="aspect-square bg-zinc-100 dark:bg-zinc-800">
                  {post.preview && <img src={post.preview} alt="" loading="lazy" className="h-full w-full object-cover" />}
                </div>
                <div className="p-2 text-sm">
                  <p className="truncate font-medium">{post.displayTitle}</p>
                  <p className="text-xs text-zinc-500 dark:text-zinc-400">
                    {post.author ?? "deleted user"} · {countOf(post.fileCount, "file")}
                  </p>
                </div>
              </a>
            </li>
          ))}
        </ul>
      )}
      {gallery.hasMore && (
        <p className="text-sm text-zinc-500 dark:text-zinc-400">Showing the newest {countOf(gallery.posts.length, "post")}.</p>
      )}
    </div>
  );
}
