import Link from "next/link";
import { displayTitle } from "@/lib/web/oembed";
import type { PostJson } from "@/lib/web/share";
import { countOf } from "@/components/plural";
import { THREE_COLUMN_SIZES, previewSources } from "@/components/preview-image";
import { Engage } from "./Engage";

/**
 * A post in the discover feed, the GIF results or a profile: its first file (as sized
 * renditions, docs/renditions.md), title, author and counts. `sizes` follows the grid.
 */
export function PostCard({ post, signedIn, sizes = THREE_COLUMN_SIZES }: { post: PostJson; signedIn: boolean; sizes?: string }) {
  const file = post.files[0];
  const title = displayTitle(post);
  const isVideo = file?.mime_type.startsWith("video/");
  const preview = previewSources(file);
  const shareHref = `/p/${post.code}`;
  return (
    <li className="flex flex-col overflow-hidden rounded-xl border border-zinc-200 bg-white shadow-sm dark:border-zinc-800 dark:bg-zinc-900">
      <Link href={shareHref} prefetch={false} className="group relative block aspect-[4/3] bg-zinc-100 dark:bg-zinc-800">
        {preview ? (
          <img
            src={preview.src}
            srcSet={preview.srcSet}
            sizes={preview.srcSet ? sizes : undefined}
            alt=""
            loading="lazy"
            decoding="async"
            className="h-full w-full object-cover transition group-hover:opacity-90"
          />
        ) : (
          <span className="flex h-full items-center justify-center text-sm text-zinc-600 dark:text-zinc-400">
            {file?.mime_type ?? "No preview"}
          </span>
        )}
        {isVideo && (
          <span aria-hidden="true" className="absolute bottom-2 left-2 rounded bg-black/70 px-2 py-0.5 text-xs font-medium text-white">
            ▶ Video
          </span>
        )}
        {post.file_count > 1 && (
          <span className="absolute right-2 top-2 rounded bg-black/70 px-2 py-0.5 text-xs font-medium text-white">
            {countOf(post.file_count, "file")}
          </span>
        )}
        <span className="sr-only">Open {title}</span>
      </Link>
      <div className="flex flex-1 flex-col gap-3 p-4">
        <div className="min-w-0">
          <h2 className="truncate font-semibold">
            <Link href={shareHref} prefetch={false} className="hover:underline">
              {title}
            </Link>
          </h2>
          {post.author && (
            <Link
              href={`/u/${encodeURIComponent(post.author.username)}`}
              prefetch={false}
              className="flex items-center gap-2 truncate text-sm text-zinc-500 hover:underline dark:text-zinc-400"
            >
              <img src={post.author.avatar} alt="" width={20} height={20} loading="lazy" className="h-5 w-5 rounded-full" />
              {post.author.nickname}
            </Link>
          )}
        </div>
        <div className="mt-auto">
          {signedIn && post.like_count !== null ? (
            <Engage code={post.code} liked={!!post.liked} likeCount={post.like_count} commentCount={post.comment_count} />
          ) : (
            <p className="text-sm text-zinc-500 dark:text-zinc-400">
              {countOf(post.view_count, "view", { compact: true })} · {countOf(post.like_count, "like", { compact: true })} ·{" "}
              {countOf(post.comment_count, "comment", { compact: true })}
            </p>
          )}
        </div>
      </div>
    </li>
  );
}
