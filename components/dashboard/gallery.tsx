"use client";
/**
 * The caller's posts: GET /api/posts with infinite scroll, filters (privacy, kind, title
 * search), multi-select delete and privacy change (one POST /api/posts/batch), uploads,
 * and the editor dialog.
 */
import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { type RefObject, useCallback, useEffect, useId, useRef, useState } from "react";
import { api, type BatchReply, type Post, type PostPage, type Privacy } from "./api";
import { PostEditor } from "./post-editor";
import { UploadPanel } from "./upload-panel";
import { useUploads } from "./upload";
import { countOf } from "../plural";
import { FOUR_COLUMN_SIZES, previewSources } from "../preview-image";
import { dangerButton, input, muted, secondaryButton } from "./ui";

const TABS = [
  { value: "all", label: "All kinds" },
  { value: "images", label: "Images" },
  { value: "videos", label: "Videos" },
  { value: "gifs", label: "GIFs" },
  { value: "albums", label: "Albums" },
] as const;
const PAGE_SIZE = 30;
/** Posts per POST /api/posts/batch (the server's BATCH_MAX_ITEMS). */
const BATCH_SIZE = 100;

type BatchAction = { action: "delete" } | { action: "privacy"; privacy: Privacy };

/** One batch request per 100 codes; the replies' results together. */
async function runBatch(codes: string[], action: BatchAction): Promise<{ done: number; failed: BatchReply["failed"] }> {
  let done = 0;
  const failed: BatchReply["failed"] = [];
  for (let start = 0; start < codes.length; start += BATCH_SIZE) {
    const chunk = codes.slice(start, start + BATCH_SIZE);
    const reply = await api<BatchReply>("/api/posts/batch", { method: "POST", body: JSON.stringify({ ...action, codes: chunk }) });
    done += reply.succeeded.length;
    failed.push(...reply.failed);
  }
  return { done, failed };
}

/** "28 deleted; 2 could not be: No such post." */
function batchNotice(verb: string, done: number, failed: BatchReply["failed"]): string {
  if (!failed.length) return `${countOf(done, "post")} ${verb}.`;
  const reasons = [...new Set(failed.map((f) => f.error.message))].join(" ");
  return `${countOf(done, "post")} ${verb}; ${failed.length} could not be: ${reasons}`;
}

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

const PRIVACY_BADGE: Record<Privacy, string> = {
  public: "bg-emerald-100 text-emerald-800 dark:bg-emerald-500/15 dark:text-emerald-300",
  unlisted: "bg-amber-100 text-amber-800 dark:bg-amber-500/15 dark:text-amber-300",
  private: "bg-zinc-200 text-zinc-800 dark:bg-zinc-700 dark:text-zinc-200",
};

type Tab = (typeof TABS)[number]["value"];
type Filters = { search: string; privacy: "" | Privacy; tab: Tab };

export function Gallery() {
  const queryClient = useQueryClient();
  const [search, setSearch] = useState("");
  const [privacy, setPrivacy] = useState<"" | Privacy>("");
  const [tab, setTab] = useState<Tab>("all");
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [editing, setEditing] = useState<Post | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [bulkPrivacy, setBulkPrivacy] = useState<Privacy>("private");
  const debouncedSearch = useDebounced(search.trim(), 300);
  const filters: Filters = { search: debouncedSearch, privacy, tab };

  const query = usePostPages(filters);
  const posts = query.data?.pages.flatMap((p) => p.posts) ?? [];
  const sentinel = useNextPageOnScroll(query);

  const refresh = useCallback(() => void queryClient.invalidateQueries({ queryKey: ["posts"] }), [queryClient]);
  const uploads = useUploads(refresh);
  const { busy, applyToSelected } = useBatchActions(selected, setSelected, setNotice, refresh);

  const toggle = (code: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(code)) next.delete(code);
      else next.add(code);
      return next;
    });

  const deleteSelected = async () => {
    if (!window.confirm(`Delete ${countOf(selected.size, "post")}? This cannot be undone.`)) return;
    await applyToSelected({ action: "delete" });
  };

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <h1 className="text-2xl font-semibold tracking-tight">Gallery</h1>
        {notice && (
          <p role="status" className={muted}>
            {notice}
          </p>
        )}
      </div>

      <UploadPanel
        items={uploads.items}
        pausedUntil={uploads.pausedUntil}
        onFiles={(files, p) => void uploads.upload(files, p)}
        onClear={uploads.clearFinished}
        onPause={uploads.pause}
        onResume={uploads.resume}
      />

      <FilterBar search={search} onSearch={setSearch} privacy={privacy} onPrivacy={setPrivacy} tab={tab} onTab={setTab} />

      {selected.size > 0 && (
        <SelectionBar
          count={selected.size}
          busy={busy}
          bulkPrivacy={bulkPrivacy}
          onBulkPrivacy={setBulkPrivacy}
          onSelectAll={() => setSelected(new Set(posts.map((p) => p.code)))}
          onClear={() => setSelected(new Set())}
          onSetPrivacy={() => void applyToSelected({ action: "privacy", privacy: bulkPrivacy })}
          onDelete={() => void deleteSelected()}
        />
      )}

      {query.isError && (
        <p role="alert" className="text-red-600 dark:text-red-400">
          {query.error.message}
        </p>
      )}
      {query.isPending && <p className={muted}>Loading posts…</p>}
      {query.isSuccess && posts.length === 0 && (
        <p className={`${muted} rounded-lg border border-dashed border-zinc-300 p-8 text-center dark:border-zinc-700`}>
          {debouncedSearch || privacy || tab !== "all"
            ? "No posts match these filters."
            : "No posts yet. Drop a file above to upload your first."}
        </p>
      )}

      <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-4" aria-label="Posts">
        {posts.map((post) => (
          <PostTile
            key={post.code}
            post={post}
            checked={selected.has(post.code)}
            onEdit={() => setEditing(post)}
            onToggle={() => toggle(post.code)}
          />
        ))}
      </ul>

      <div ref={sentinel} aria-hidden="true" />
      {query.hasNextPage && (
        <div className="flex justify-center">
          <button type="button" className={secondaryButton} disabled={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
            {query.isFetchingNextPage ? "Loading…" : "Load more"}
          </button>
        </div>
      )}

      {editing && (
        <PostEditor
          post={editing}
          onClose={() => setEditing(null)}
          onChanged={(post) => {
            setEditing(post);
            refresh();
          }}
          onDeleted={() => {
            setEditing(null);
            refresh();
          }}
        />
      )}
    </div>
  );
}

/** GET /api/posts page by page (cursor), with the filters as the query key. */
function usePostPages({ search, privacy, tab }: Filters) {
  return useInfiniteQuery({
    queryKey: ["posts", { search, privacy, tab }],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) => {
      const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
      if (pageParam) params.set("cursor", pageParam);
      if (search) params.set("search", search);
      if (privacy) params.set("privacy", privacy);
      if (tab !== "all") params.set("tab", tab);
      return api<PostPage>(`/api/posts?${params}`, { signal });
    },
    getNextPageParam: (last) => (last.has_more ? last.next_cursor : null),
  });
}

/** Infinite scroll: the next page loads when the returned sentinel (below the grid) comes into view. */
function useNextPageOnScroll({
  hasNextPage,
  isFetchingNextPage,
  fetchNextPage,
}: {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => Promise<unknown>;
}): RefObject<HTMLDivElement | null> {
  const sentinel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const node = sentinel.current;
    if (!node || !hasNextPage) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting) && !isFetchingNextPage) void fetchNextPage();
      },
      { rootMargin: "400px" },
    );
    observer.observe(node);
    return () => observer.disconnect();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  return sentinel;
}

/**
 * The whole selection in one request (docs/bulk-actions.md): no 429s past 20 posts. What
 * failed stays selected; the outcome is the gallery's notice.
 */
function useBatchActions(
  selected: Set<string>,
  setSelected: (codes: Set<string>) => void,
  setNotice: (notice: string) => void,
  refresh: () => void,
): { busy: boolean; applyToSelected: (action: BatchAction) => Promise<void> } {
  const [busy, setBusy] = useState(false);
  const applyToSelected = async (action: BatchAction) => {
    const codes = [...selected];
    setBusy(true);
    try {
      const { done, failed } = await runBatch(codes, action);
      setNotice(batchNotice(action.action === "delete" ? "deleted" : `set to ${action.privacy}`, done, failed));
      setSelected(new Set(failed.map((f) => f.code)));
    } catch (error) {
      setNotice(error instanceof Error ? error.message : "The change failed.");
    } finally {
      setBusy(false);
      refresh();
    }
  };
  return { busy, applyToSelected };
}

function FilterBar({
  search,
  onSearch,
  privacy,
  onPrivacy,
  tab,
  onTab,
}: {
  search: string;
  onSearch: (search: string) => void;
  privacy: "" | Privacy;
  onPrivacy: (privacy: "" | Privacy) => void;
  tab: Tab;
  onTab: (tab: Tab) => void;
}) {
  const ids = { search: useId(), privacy: useId(), tab: useId() };
  return (
    <div className="grid gap-3 sm:grid-cols-[1fr_auto_auto]">
      <div>
        <label htmlFor={ids.search} className="sr-only">
          Search by title
        </label>
        <input
          id={ids.search}
          type="search"
          placeholder="Search titles and descriptions"
          value={search}
          onChange={(e) => onSearch(e.target.value)}
          className={input}
        />
      </div>
      <div>
        <label htmlFor={ids.privacy} className="sr-only">
          Filter by privacy
        </label>
        <select id={ids.privacy} value={privacy} onChange={(e) => onPrivacy(e.target.value as "" | Privacy)} className={input}>
          <option value="">Any privacy</option>
          <option value="public">Public</option>
          <option value="unlisted">Unlisted</option>
          <option value="private">Private</option>
        </select>
      </div>
      <div>
        <label htmlFor={ids.tab} className="sr-only">
          Filter by kind
        </label>
        <select id={ids.tab} value={tab} onChange={(e) => onTab(e.target.value as Tab)} className={input}>
          {TABS.map((t) => (
            <option key={t.value} value={t.value}>
              {t.label}
            </option>
          ))}
        </select>
      </div>
    </div>
  );
}

/** The actions on the selected posts. The chosen privacy stays with the gallery while the bar is hidden. */
function SelectionBar({
  count,
  busy,
  bulkPrivacy,
  onBulkPrivacy,
  onSelectAll,
  onClear,
  onSetPrivacy,
  onDelete,
}: {
  count: number;
  busy: boolean;
  bulkPrivacy: Privacy;
  onBulkPrivacy: (privacy: Privacy) => void;
  onSelectAll: () => void;
  onClear: () => void;
  onSetPrivacy: () => void;
  onDelete: () => void;
}) {
  const privacyId = useId();
  return (
    <div className="sticky top-2 z-10 flex items-center justify-between gap-3 rounded-lg border border-zinc-200 bg-white/95 p-3 shadow-sm dark:border-zinc-800 dark:bg-zinc-900/95">
      <span className="text-sm">{count} selected</span>
      <div className="flex flex-wrap items-center gap-2">
        <button type="button" className={secondaryButton} onClick={onSelectAll}>
          Select all
        </button>
        <button type="button" className={secondaryButton} onClick={onClear}>
          Clear
        </button>
        <label htmlFor={privacyId} className="sr-only">
          New privacy of the selected posts
        </label>
        <select
          id={privacyId}
          value={bulkPrivacy}
          onChange={(e) => onBulkPrivacy(e.target.value as Privacy)}
          className="rounded-md border border-zinc-300 bg-white px-2 py-2 text-sm dark:border-zinc-700 dark:bg-zinc-900"
        >
          <option value="private">Private</option>
          <option value="unlisted">Unlisted</option>
          <option value="public">Public</option>
        </select>
        <button type="button" className={secondaryButton} disabled={busy} onClick={onSetPrivacy}>
          Set privacy
        </button>
        <button type="button" className={dangerButton} disabled={busy} onClick={onDelete}>
          Delete selected
        </button>
      </div>
    </div>
  );
}

/** One post in the grid: its preview opens the editor; the checkbox selects it. */
function PostTile({ post, checked, onEdit, onToggle }: { post: Post; checked: boolean; onEdit: () => void; onToggle: () => void }) {
  const preview = previewSources(post.files[0]);
  const title = post.title || "Untitled";
  return (
    <li
      data-code={post.code}
      className={`group relative overflow-hidden rounded-lg border bg-zinc-50 dark:bg-zinc-900 ${checked ? "border-brand-500 ring-2 ring-brand-500" : "border-zinc-200 dark:border-zinc-800"}`}
    >
      <button type="button" onClick={onEdit} className="block w-full text-left" aria-label={`Edit ${title}`}>
        <div className="aspect-square w-full bg-zinc-100 dark:bg-zinc-800">
          {preview ? (
            <img
              src={preview.src}
              srcSet={preview.srcSet}
              sizes={preview.srcSet ? FOUR_COLUMN_SIZES : undefined}
              alt=""
              loading="lazy"
              className="h-full w-full object-cover"
            />
          ) : (
            <div className="flex h-full items-center justify-center text-sm text-zinc-500">{post.files[0]?.mime_type ?? "No file"}</div>
          )}
        </div>
        <div className="space-y-1 p-2">
          <p className="truncate text-sm font-medium">{title}</p>
          <p className="flex flex-wrap items-center gap-1.5 text-xs text-zinc-500 dark:text-zinc-400">
            <span className={`rounded px-1.5 py-0.5 font-medium ${PRIVACY_BADGE[post.privacy]}`}>{post.privacy}</span>
            {post.file_count > 1 && <span>{countOf(post.file_count, "file")}</span>}
            <span>{countOf(post.view_count, "view")}</span>
            {post.moderated && <span className="text-red-600">moderated</span>}
          </p>
        </div>
      </button>
      <label className="absolute left-2 top-2 flex items-center rounded bg-white/90 p-1.5 shadow dark:bg-zinc-900/90">
        <input type="checkbox" checked={checked} onChange={onToggle} className="h-4 w-4 accent-brand-600" />
        <span className="sr-only">Select {title}</span>
      </label>
    </li>
  );
}
