/** One post in the gallery's grid. */
import { displayTitle } from "@/lib/presenters/title";
import { countOf } from "@/components/plural";
import { automaticAlt, matchedLine } from "@/lib/posts/text-lines";
import type { Post, Privacy } from "./api";
import { TilePreview } from "./tile-preview";
import { CopyButton } from "./copy-button";
import { TagChip } from "./tag-chip";

const PRIVACY_BADGE: Record<Privacy, string> = {
  public: "bg-emerald-100 text-emerald-800 dark:bg-emerald-500/15 dark:text-emerald-300",
  unlisted: "bg-amber-100 text-amber-800 dark:bg-amber-500/15 dark:text-amber-300",
  private: "bg-zinc-200 text-zinc-800 dark:bg-zinc-700 dark:text-zinc-200",
};

/** One post in the grid: its preview opens the editor; the checkbox selects it. */
export function PostTile({
  post,
  checked,
  search = "",
  onEdit,
  onToggle,
  eager = false,
  priority = false,
}: {
  post: Post;
  checked: boolean;
  /** The first screenful of tiles loads at once, not when the lazy-loading observer runs. */
  eager?: boolean;
  /** The first row: fetched before other images, since the page's largest paint is one of them. */
  priority?: boolean;
  /** The gallery's search: the line of an image's text it matched is shown (docs/ocr.md). */
  search?: string;
  onEdit: () => void;
  onToggle: () => void;
}) {
  const title = displayTitle(post);
  const texts = post.files.map((f) => f.text?.content);
  const line = search ? matchedLine(texts, search) : null;
  const autoAlt = post.description ? null : automaticAlt(texts[0]);
  return (
    <li
      data-code={post.code}
      className={`group relative overflow-hidden rounded-lg border bg-zinc-50 dark:bg-zinc-900 ${checked ? "border-brand-500 ring-2 ring-brand-500" : "border-zinc-200 dark:border-zinc-800"}`}
    >
      {/* Named by its content, "Edit" first: the visible title must be part of the name (WCAG 2.5.3, axe). */}
      <button type="button" onClick={onEdit} className="block w-full text-left">
        <span className="sr-only">Edit </span>
        <div className="aspect-square w-full bg-zinc-100 dark:bg-zinc-800">
          <TilePreview
            file={post.files[0]}
            alt={autoAlt ? `Automatic description, text in the image: ${autoAlt}` : ""}
            eager={eager}
            priority={priority}
          />
        </div>
        <div className="space-y-1 p-2">
          <p className="flex items-center gap-1 truncate text-sm font-medium">
            {post.favorite && (
              <span className="text-amber-500" title="Favourite">
                ★<span className="sr-only">Favourite: </span>
              </span>
            )}
            <span className="truncate">{title}</span>
          </p>
          {line && (
            <p className="truncate text-xs text-zinc-600 dark:text-zinc-300" data-matched-line title={line}>
              <span className="sr-only">Text in the image: </span>“{line}”
            </p>
          )}
          <p className="flex flex-wrap items-center gap-1.5 text-xs text-zinc-500 dark:text-zinc-400">
            <span className={`rounded px-1.5 py-0.5 font-medium ${PRIVACY_BADGE[post.privacy]}`}>{post.privacy}</span>
            {post.file_count > 1 && <span>{countOf(post.file_count, "file")}</span>}
            <span>{countOf(post.view_count, "view")}</span>
            {post.moderated && <span className="text-red-600">moderated</span>}
          </p>
          {post.tags && post.tags.length > 0 && (
            // Not a list: the tile is the grid's list item, and its chips are a line of its text.
            <p className="flex flex-wrap gap-1">
              <span className="sr-only">Tags: </span>
              {post.tags.map((t) => (
                <TagChip key={t.id} name={t.name} color={t.color} />
              ))}
            </p>
          )}
        </div>
      </button>
      <label className="absolute left-2 top-2 flex items-center rounded bg-white/90 p-1.5 shadow dark:bg-zinc-900/90">
        <input type="checkbox" checked={checked} onChange={onToggle} className="h-4 w-4 accent-brand-600" />
        <span className="sr-only">Select {title}</span>
      </label>
      {post.files[0] && (
        <CopyButton
          value={post.files[0].url}
          label="Direct link"
          title={`Copy direct link of ${title}`}
          className="absolute right-2 top-2 rounded bg-white/90 px-2 py-1 text-xs font-medium shadow hover:bg-white dark:bg-zinc-900/90 dark:hover:bg-zinc-900"
        />
      )}
    </li>
  );
}
