"use client";
/**
 * The caller's posts: GET /api/posts with infinite scroll, filters (privacy, kind, title
 * search, folder, tag, favourites), an order and a grid or list view (docs/gallery-sort.md),
 * multi-select delete, privacy, folder, tag and favourite changes (one POST /api/posts/batch),
 * uploads, and the editor dialog.
 */
import { useQueryClient } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { type Dispatch, type SetStateAction, useCallback, useState } from "react";
import { countOf } from "@/components/plural";
import type { Post, Privacy } from "./api";
import { useBatchActions } from "./gallery-batch";
import { type AcceptedFiles, FilterBar, isFiltered, SortSelect, useFilters } from "./gallery-filters";
import { PostList, useGalleryView, ViewToggle } from "./gallery-view";
import { FolderActions } from "./folder-actions";
import { TagActions } from "./tag-actions";
import { useNextPageOnScroll, usePostPages } from "./gallery-pages";
import { PostTile } from "./post-tile";
import { SelectionBar } from "./selection-bar";
import { UploadPanel } from "./upload-panel";
import { PasteEditor } from "./paste-editor";
import { useUploads } from "./upload";
import { muted, secondaryButton } from "./ui";
import type { FirstGalleryPage } from "@/lib/web/dashboard/gallery";

/**
 * The editor opens on a click: its code (the video player, the file list, the share
 * password form) is loaded then, not before the first paint (issue 29).
 */
const PostEditor = dynamic(() => import("./post-editor").then((m) => m.PostEditor), { ssr: false });

/**
 * `accepted`: what UPLOAD_FILES lets in; with text, the paste editor is shown (docs/pastes.md)
 * and the kind filter offers what can be there. `uploadPrivacy`: what new uploads start as
 * (the account's choice, else the operator's default; lib/users/upload-privacy.ts).
 * `first`: the first page the server read for the page's listing (lib/web/dashboard/gallery.ts).
 */
export interface GalleryProps {
  accepted?: AcceptedFiles;
  uploadPrivacy?: Privacy;
  first?: FirstGalleryPage;
}

export function Gallery({ accepted = "media", uploadPrivacy = "unlisted", first }: GalleryProps) {
  const queryClient = useQueryClient();
  const { filters, sort, onSort, ...filterBar } = useFilters();
  const [view, setView] = useGalleryView();
  const { selected, setSelected, toggle } = useSelection();
  const [editing, setEditing] = useState<Post | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [bulkPrivacy, setBulkPrivacy] = useState<Privacy>("private");

  const query = usePostPages(filters, first);
  const posts = query.data?.pages.flatMap((p) => p.posts) ?? [];
  const sentinel = useNextPageOnScroll(query);

  // Folders too: their post counts follow uploads, deletions and the folder actions.
  const refresh = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: ["posts"] });
    void queryClient.invalidateQueries({ queryKey: ["folders"] });
    void queryClient.invalidateQueries({ queryKey: ["tags"] });
  }, [queryClient]);
  const uploads = useUploads(refresh);
  const { busy, applyToSelected } = useBatchActions(selected, setSelected, setNotice, refresh);

  const deleteSelected = async () => {
    if (!window.confirm(`Delete ${countOf(selected.size, "post")}? This cannot be undone.`)) return;
    await applyToSelected({ action: "delete" });
  };

  return (
    <div className="space-y-6">
      <GalleryHeading notice={notice} />

      <UploadPanel
        initialPrivacy={uploadPrivacy}
        items={uploads.items}
        pausedUntil={uploads.pausedUntil}
        onFiles={(files, p) => void uploads.upload(files, p)}
        onUrl={(url, p) => void uploads.uploadUrl(url, p)}
        onClear={uploads.clearFinished}
        onPause={uploads.pause}
        onResume={uploads.resume}
      />

      {accepted !== "media" && <PasteEditor onCreated={refresh} privacy={uploadPrivacy} />}

      <FilterBar {...filterBar} accepted={accepted} />
      <div className="flex flex-wrap items-center justify-between gap-3">
        <SortSelect sort={sort} onSort={onSort} />
        <ViewToggle view={view} onView={setView} />
      </div>

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
        >
          <FolderActions busy={busy} onApply={(action) => void applyToSelected(action)} />
          <TagActions busy={busy} onApply={(action) => void applyToSelected(action)} />
        </SelectionBar>
      )}

      {query.isError && (
        <p role="alert" className="text-red-600 dark:text-red-400">
          {query.error.message}
        </p>
      )}
      {query.isPending && <p className={muted}>Loading posts…</p>}
      {query.isSuccess && posts.length === 0 && <NoPosts filtered={isFiltered(filters)} />}

      {view === "list" ? (
        <PostList posts={posts} selected={selected} onEdit={setEditing} onToggle={toggle} />
      ) : (
        <PostGrid posts={posts} search={filters.search} selected={selected} onEdit={setEditing} onToggle={toggle} />
      )}

      <div ref={sentinel} aria-hidden="true" />
      {query.hasNextPage && <LoadMore loading={query.isFetchingNextPage} onMore={() => void query.fetchNextPage()} />}

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

/** The codes of the selected posts, and a checkbox's toggle of one. */
function useSelection(): {
  selected: Set<string>;
  setSelected: Dispatch<SetStateAction<Set<string>>>;
  toggle: (code: string) => void;
} {
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const toggle = (code: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(code)) next.delete(code);
      else next.add(code);
      return next;
    });
  return { selected, setSelected, toggle };
}

/** The title, with the outcome of the last bulk action beside it. */
function GalleryHeading({ notice }: { notice: string | null }) {
  return (
    <div className="flex flex-wrap items-end justify-between gap-3">
      <h1 className="text-2xl font-semibold tracking-tight">Gallery</h1>
      {notice && (
        <p role="status" className={muted}>
          {notice}
        </p>
      )}
    </div>
  );
}

function NoPosts({ filtered }: { filtered: boolean }) {
  return (
    <p className={`${muted} rounded-lg border border-dashed border-zinc-300 p-8 text-center dark:border-zinc-700`}>
      {filtered ? "No posts match these filters." : "No posts yet. Drop a file above to upload your first."}
    </p>
  );
}

/** Two rows of four on a desktop, four rows of two on a phone: the first screenful. */
const EAGER_TILES = 8;
/** The first row on a desktop, the first two on a phone: in the server's HTML, fetched first. */
const PRIORITY_TILES = 4;

function PostGrid({
  posts,
  search,
  selected,
  onEdit,
  onToggle,
}: {
  posts: Post[];
  search: string;
  selected: Set<string>;
  onEdit: (post: Post) => void;
  onToggle: (code: string) => void;
}) {
  return (
    <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-4" aria-label="Posts">
      {posts.map((post, index) => (
        <PostTile
          key={post.code}
          post={post}
          eager={index < EAGER_TILES}
          priority={index < PRIORITY_TILES}
          checked={selected.has(post.code)}
          search={search}
          onEdit={() => onEdit(post)}
          onToggle={() => onToggle(post.code)}
        />
      ))}
    </ul>
  );
}

/** The next page by hand, beside the infinite scroll. */
function LoadMore({ loading, onMore }: { loading: boolean; onMore: () => void }) {
  return (
    <div className="flex justify-center">
      <button type="button" className={secondaryButton} disabled={loading} onClick={onMore}>
        {loading ? "Loading…" : "Load more"}
      </button>
    </div>
  );
}
