"use client";
/**
 * The gallery as a grid of cards or a list (a table of name, type, size, date and a video's
 * duration), the choice remembered in this browser (docs/gallery-sort.md, "Dashboard").
 */
import { displayTitle } from "@/lib/presenters/title";
import { useEffect, useState } from "react";
import type { Post } from "./api";
import { CopyButton } from "./copy-button";
import { formatBytes, formatDate } from "./ui";

export type GalleryView = "grid" | "list";
const VIEW_KEY = "gallery-view";

/**
 * The view, read from localStorage after the first render (the server renders the grid, so
 * the first paint matches it) and written on each change.
 */
export function useGalleryView(): [GalleryView, (view: GalleryView) => void] {
  const [view, setView] = useState<GalleryView>("grid");
  useEffect(() => {
    try {
      if (window.localStorage.getItem(VIEW_KEY) === "list") setView("list");
    } catch {
      // Storage blocked (private mode, policy): the grid, as before.
    }
  }, []);
  const change = (next: GalleryView) => {
    setView(next);
    try {
      window.localStorage.setItem(VIEW_KEY, next);
    } catch {
      // Not remembered; the choice holds for this visit.
    }
  };
  return [view, change];
}

/** Two toggle buttons, Grid and List; the pressed one is the view shown. */
export function ViewToggle({ view, onView }: { view: GalleryView; onView: (view: GalleryView) => void }) {
  const option = (value: GalleryView, label: string) => (
    <button
      type="button"
      aria-pressed={view === value}
      onClick={() => onView(value)}
      className={`px-3 py-2 text-sm font-medium focus-visible:outline focus-visible:outline-2 focus-visible:outline-brand-500 ${
        view === value
          ? "bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900"
          : "bg-white text-zinc-900 hover:bg-zinc-100 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800"
      }`}
    >
      {label}
    </button>
  );
  return (
    <fieldset className="flex overflow-hidden rounded-md border border-zinc-300 dark:border-zinc-700">
      <legend className="sr-only">View</legend>
      {option("grid", "Grid")}
      {option("list", "List")}
    </fieldset>
  );
}

/** 75.4 → "1:15"; 3725 → "1:02:05". */
export function formatDuration(seconds: number): string {
  const total = Math.round(seconds);
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const two = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

/** The post's type in a few words: the first file's media type, and how many files an album holds. */
function typeOf(post: Post): string {
  const first = post.files[0]?.mime_type ?? "—";
  return post.file_count > 1 ? `${first} + ${post.file_count - 1} more` : first;
}

const sizeOf = (post: Post): number => post.files.reduce((n, f) => n + f.size, 0);
/** The first video's length (the file record's duration), when the post has one. */
const durationOf = (post: Post): number | null => post.files.find((f) => f.duration != null)?.duration ?? null;

const cell = "px-3 py-2 align-middle whitespace-nowrap";

/** The list view: one row a post; the name opens the editor, the checkbox selects it. */
export function PostList({
  posts,
  selected,
  onEdit,
  onToggle,
}: {
  posts: Post[];
  selected: Set<string>;
  onEdit: (post: Post) => void;
  onToggle: (code: string) => void;
}) {
  return (
    // A narrow screen scrolls the table sideways; the region can be scrolled by keyboard.
    // `relative`: the cells' visually hidden labels are absolutely positioned, and would
    // otherwise escape the region and widen the page.
    <section
      aria-label="Posts, as a list"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be focusable to scroll without a mouse
      tabIndex={0}
      className="relative overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800"
    >
      <table className="w-full text-left text-sm">
        <thead className="bg-zinc-50 text-xs uppercase tracking-wide text-zinc-600 dark:bg-zinc-900 dark:text-zinc-400">
          <tr>
            <th scope="col" className={cell}>
              <span className="sr-only">Selected</span>
            </th>
            <th scope="col" className={cell}>
              Name
            </th>
            <th scope="col" className={cell}>
              Type
            </th>
            <th scope="col" className={`${cell} text-right`}>
              Size
            </th>
            <th scope="col" className={cell}>
              Date
            </th>
            <th scope="col" className={`${cell} text-right`}>
              Duration
            </th>
            <th scope="col" className={cell}>
              <span className="sr-only">Direct link</span>
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800">
          {posts.map((post) => (
            <PostRow
              key={post.code}
              post={post}
              checked={selected.has(post.code)}
              onEdit={() => onEdit(post)}
              onToggle={() => onToggle(post.code)}
            />
          ))}
        </tbody>
      </table>
    </section>
  );
}

function PostRow({ post, checked, onEdit, onToggle }: { post: Post; checked: boolean; onEdit: () => void; onToggle: () => void }) {
  const title = displayTitle(post);
  const duration = durationOf(post);
  return (
    <tr data-code={post.code} className={checked ? "bg-brand-50 dark:bg-brand-500/10" : undefined}>
      <td className={cell}>
        <label className="flex items-center">
          <input type="checkbox" checked={checked} onChange={onToggle} className="h-4 w-4 accent-brand-600" />
          <span className="sr-only">Select {title}</span>
        </label>
      </td>
      <td className={`${cell} max-w-[16rem]`}>
        <button
          type="button"
          onClick={onEdit}
          className="block max-w-full truncate text-left font-medium text-zinc-900 underline-offset-2 hover:underline dark:text-zinc-100"
          title={title}
          aria-label={`Edit ${title}`}
        >
          {title}
        </button>
        {post.privacy !== "private" && <span className="text-xs text-zinc-500 dark:text-zinc-400">{post.privacy}</span>}
      </td>
      <td className={`${cell} text-zinc-700 dark:text-zinc-300`} data-col="type">
        {typeOf(post)}
      </td>
      <td className={`${cell} text-right tabular-nums`} data-col="size">
        {formatBytes(sizeOf(post))}
      </td>
      <td className={cell} data-col="date">
        <time dateTime={post.created_at}>{formatDate(post.created_at)}</time>
      </td>
      <td className={`${cell} text-right tabular-nums`} data-col="duration">
        {duration === null ? (
          <>
            <span aria-hidden="true">—</span>
            <span className="sr-only">none</span>
          </>
        ) : (
          formatDuration(duration)
        )}
      </td>
      <td className={cell}>
        {post.files[0] && (
          <CopyButton
            value={post.files[0].url}
            label="Direct link"
            title={`Copy direct link of ${title}`}
            className="rounded border border-zinc-300 px-2 py-1 text-xs font-medium hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
          />
        )}
      </td>
    </tr>
  );
}
