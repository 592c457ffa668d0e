import Link from "next/link";
import { FOUR_COLUMN_SIZES, previewSources } from "@/components/preview-image";
import { displayTitle } from "@/lib/web/oembed";
import type { PostJson } from "@/lib/web/share";

/** A public folder's posts: each its first file's renditions (docs/renditions.md) and title, linking to the share page. */
export function FolderGrid({ posts }: { posts: PostJson[] }) {
  return (
    <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-4" aria-label="Posts">
      {posts.map((post) => {
        const file = post.files[0];
        const preview = previewSources(file);
        const title = displayTitle(post);
        return (
          <li key={post.code} className="overflow-hidden rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
            <Link href={`/p/${post.code}`} prefetch={false} className="group block">
              <span className="block aspect-square bg-zinc-100 dark:bg-zinc-800">
                {preview ? (
                  <img
                    src={preview.src}
                    srcSet={preview.srcSet}
                    sizes={preview.srcSet ? FOUR_COLUMN_SIZES : undefined}
                    alt=""
                    loading="lazy"
                    decoding="async"
                    className="h-full w-full object-cover transition group-hover:opacity-90"
                  />
                ) : (
                  <span className="flex h-full items-center justify-center p-2 text-center text-xs text-zinc-600 dark:text-zinc-400">
                    {file?.mime_type}
                  </span>
                )}
              </span>
              <span className="block truncate px-2 py-1.5 text-sm font-medium group-hover:underline">{title}</span>
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
