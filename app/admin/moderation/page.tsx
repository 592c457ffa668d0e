import Link from "next/link";
import { DeletePost } from "@/components/admin/delete-post";
import { Back, Flash, PageHeading, Pager, param, plural, type SearchParams } from "@/components/admin/parts";
import { PostPreviews } from "@/components/admin/preview";
import { card, muted, primaryButton } from "@/components/dashboard/ui";
import { moderationQueue } from "@/lib/admin/posts";
import { requireAdmin } from "@/lib/web/admin/guard";
import { releasePostAction } from "@/lib/web/admin/actions";

export const metadata = { title: "Moderation" };

export default async function AdminModerationPage({ searchParams }: { searchParams: SearchParams }) {
  await requireAdmin();
  const params = await searchParams;
  const page = Number.parseInt(param(params, "page") ?? "1", 10) || 1;
  const queue = await moderationQueue({ page });
  const here = `/admin/moderation?page=${queue.page}`;
  return (
    <>
      <PageHeading title="Moderation">
        {plural(queue.total, "post")} under moderation, longest waiting first. Nobody else can open them until they are released.
      </PageHeading>
      <Flash notice={param(params, "notice")} error={param(params, "error")} />
      {queue.posts.length === 0 && <p className={muted}>Nothing is waiting.</p>}
      <ul className="space-y-3">
        {queue.posts.map((post) => (
          <li key={post.code} className={`${card} space-y-3`} data-post={post.code}>
            <div>
              <p className="font-medium">{post.title ?? post.code}</p>
              <p className={muted}>
                {post.code} · {post.privacy} · {plural(post.fileCount, "file")} · by{" "}
                {post.author ? (
                  <Link className="underline" href={`/admin/users/${post.author.id}`}>
                    {post.author.username}
                  </Link>
                ) : (
                  "a deleted user"
                )}{" "}
                · {post.createdAt.toISOString().slice(0, 16).replace("T", " ")} UTC
              </p>
              {post.description && <p className="mt-1 text-sm">{post.description}</p>}
            </div>
            <PostPreviews post={post} />
            <div className="flex flex-wrap gap-2">
              <form action={releasePostAction}>
                <Back path={here} />
                <input type="hidden" name="code" value={post.code} />
                <button type="submit" className={primaryButton} aria-label={`Release post ${post.code}`}>
                  Release
                </button>
              </form>
              <DeletePost code={post.code} back={here} />
            </div>
          </li>
        ))}
      </ul>
      <Pager page={queue.page} pageCount={queue.pageCount} href={(p) => `/admin/moderation?page=${p}`} />
    </>
  );
}
