/** One account's newest posts on its admin page, each with moderate (or release) and delete. */
import { DeletePost } from "@/components/admin/delete-post";
import { Back, plural } from "@/components/admin/parts";
import { card, muted, secondaryButton } from "@/components/dashboard/ui";
import type { AdminPostRow, AdminUserDetail } from "@/lib/admin/users";
import { moderatePostAction, releasePostAction } from "@/lib/web/admin/actions";

/** `here` is where every action returns. */
export function UserPosts({ user, here }: { user: AdminUserDetail; here: string }) {
  return (
    <section aria-label="Posts" className="space-y-2">
      <h2 className="text-lg font-semibold">Posts</h2>
      {user.posts.length === 0 && <p className={muted}>No posts.</p>}
      <ul className="space-y-2">
        {user.posts.map((post) => (
          <UserPostRow key={post.code} post={post} here={here} />
        ))}
      </ul>
      {user.postCount > user.posts.length && <p className={muted}>The newest {user.posts.length} are shown.</p>}
    </section>
  );
}

function UserPostRow({ post, here }: { post: AdminPostRow; here: string }) {
  return (
    <li className={`${card} flex flex-wrap items-center justify-between gap-2`} data-post={post.code}>
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
          <button type="submit" className={secondaryButton} aria-label={`${post.moderated ? "Release" : "Moderate"} post ${post.code}`}>
            {post.moderated ? "Release" : "Moderate"}
          </button>
        </form>
        <DeletePost code={post.code} back={here} />
      </div>
    </li>
  );
}
