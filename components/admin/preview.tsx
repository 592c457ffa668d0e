/**
 * Previews of a post's files for the console. They load through the admin-only route
 * /admin/preview/{code}/{index} (docs/admin.md), never the CDN, which refuses moderated posts.
 */
import type { QueuedPost } from "@/lib/admin/posts";

const src = (code: string, index: number, thumbnail: boolean) =>
  `/admin/preview/${encodeURIComponent(code)}/${index}${thumbnail ? "?thumbnail=1" : ""}`;

export function PostPreviews({ post }: { post: QueuedPost }) {
  if (post.files.length === 0) return <p className="text-sm text-zinc-500">No files.</p>;
  return (
    <ul className="grid grid-cols-2 gap-2 sm:grid-cols-4">
      {post.files.map((file) => {
        const image = file.mimeType.startsWith("image/");
        const still = image || file.hasThumbnail;
        return (
          <li
            key={file.index}
            className="overflow-hidden rounded-md border border-zinc-200 bg-zinc-100 dark:border-zinc-800 dark:bg-zinc-800"
          >
            {still ? (
              // A plain <img>: next/image's optimiser would fetch and cache it outside the admin check.
              <img
                src={src(post.code, file.index, !image)}
                alt={`Preview of ${file.name}`}
                loading="lazy"
                className="aspect-square w-full object-cover"
              />
            ) : (
              <div className="flex aspect-square items-center justify-center p-2 text-center text-xs text-zinc-600 dark:text-zinc-400">
                {file.name}
              </div>
            )}
            {!image && (
              <a
                className="block truncate px-2 py-1 text-xs underline"
                href={src(post.code, file.index, false)}
                target="_blank"
                rel="noreferrer"
              >
                Open {file.name}
              </a>
            )}
          </li>
        );
      })}
    </ul>
  );
}
