"use client";
/** The gallery's filters: title search, privacy, kind, folder, tag and favourites (docs/tags.md); and its order (docs/gallery-sort.md). */
import { useSearchParams } from "next/navigation";
import { useEffect, useState } from "react";
import { DEFAULT_GALLERY_SORT, type GallerySort, isGallerySort } from "@/lib/posts/gallery-sorts";
import type { Privacy } from "./api";
import { PRIVACIES, PRIVACY_LABEL } from "./privacies";
import { useFolders } from "./folders";
import { useTags } from "./tags";
import { input } from "./ui";
import { fieldIds } from "@/components/field";

const TABS = [
  { value: "all", label: "All kinds" },
  { value: "images", label: "Images" },
  { value: "videos", label: "Videos" },
  { value: "gifs", label: "GIFs" },
  { value: "albums", label: "Albums" },
  { value: "texts", label: "Text" },
  { value: "files", label: "Other files" },
] as const;

/** The kinds a gallery offers: text and other files only where the instance takes them (UPLOAD_FILES). */
export type AcceptedFiles = "media" | "media,text" | "all";
const tabsFor = (accepted: AcceptedFiles) =>
  TABS.filter((t) => (t.value === "texts" ? accepted !== "media" : t.value === "files" ? accepted === "all" : true));

/** Every order GET /posts takes, in words. */
const SORT_LABEL: Record<GallerySort, string> = {
  date: "Newest first",
  "-date": "Oldest first",
  size: "Largest first",
  "-size": "Smallest first",
  views: "Most viewed",
  "-views": "Least viewed",
  name: "Name, A to Z",
  "-name": "Name, Z to A",
};

type Tab = (typeof TABS)[number]["value"];
/** What GET /api/posts is asked for. */
export type Filters = {
  search: string;
  privacy: "" | Privacy;
  tab: Tab;
  folder: string;
  /** A tag id, or "" for any (docs/tags.md). */
  tag: string;
  /** Only the posts marked favourite. */
  favorite: boolean;
  sort: GallerySort;
};

type FilterBarProps = {
  sort: GallerySort;
  onSort: (sort: GallerySort) => void;
  search: string;
  onSearch: (search: string) => void;
  privacy: "" | Privacy;
  onPrivacy: (privacy: "" | Privacy) => void;
  tab: Tab;
  onTab: (tab: Tab) => void;
  /** A folder id, or "" for every post (docs/folders.md). */
  folder: string;
  onFolder: (folder: string) => void;
  tag: string;
  onTag: (tag: string) => void;
  favorite: boolean;
  onFavorite: (favorite: boolean) => void;
};

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

/** The filter bar's values as typed, and the filters to query with: the search trimmed and 300 ms behind the typing. */
export function useFilters(): FilterBarProps & { filters: Filters } {
  const [search, setSearch] = useState("");
  const [privacy, setPrivacy] = useState<"" | Privacy>("");
  const [tab, setTab] = useState<Tab>("all");
  // The folders page links here with ?folder=ID.
  const params = useSearchParams();
  const [folder, setFolder] = useState(params.get("folder") ?? "");
  // The tags page links here with ?tag=ID.
  const [tag, setTag] = useState(params.get("tag") ?? "");
  const [favorite, setFavorite] = useState(params.get("favorite") === "true");
  const debouncedSearch = useDebounced(search.trim(), 300);
  const [sort, onSort] = useSortInUrl();
  return {
    sort,
    onSort,
    search,
    onSearch: setSearch,
    privacy,
    onPrivacy: setPrivacy,
    tab,
    onTab: setTab,
    folder,
    onFolder: setFolder,
    tag,
    onTag: setTag,
    favorite,
    onFavorite: setFavorite,
    filters: { search: debouncedSearch, privacy, tab, folder, tag, favorite, sort },
  };
}

/**
 * The order, kept in the address as `?sort=` (absent for the default) so a reload or a
 * shared link shows the same order; an unknown value there is the default.
 */
function useSortInUrl(): [GallerySort, (sort: GallerySort) => void] {
  const asked = useSearchParams().get("sort");
  const [sort, setSort] = useState<GallerySort>(isGallerySort(asked) ? asked : DEFAULT_GALLERY_SORT);
  const change = (next: GallerySort) => {
    setSort(next);
    const url = new URL(window.location.href);
    if (next === DEFAULT_GALLERY_SORT) url.searchParams.delete("sort");
    else url.searchParams.set("sort", next);
    window.history.replaceState(window.history.state, "", url);
  };
  return [sort, change];
}

/** The order of the gallery: a labelled select of every order GET /posts takes. */
export function SortSelect({ sort, onSort }: { sort: GallerySort; onSort: (sort: GallerySort) => void }) {
  // Fixed ids, not useId: the gallery hydrates as its own root (fieldIds in components/field.tsx).
  const id = "gallery-sort";
  return (
    <div className="flex items-center gap-2">
      <label htmlFor={id} className="text-sm font-medium text-zinc-700 dark:text-zinc-300">
        Sort
      </label>
      <select id={id} value={sort} onChange={(e) => onSort(e.target.value as GallerySort)} className={`${input} w-auto`}>
        {Object.entries(SORT_LABEL).map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Whether any filter narrows the list (an empty list then says so rather than inviting a first upload). */
export function isFiltered({ search, privacy, tab, folder, tag, favorite }: Omit<Filters, "sort">): boolean {
  return Boolean(search || privacy || folder || tag || favorite || tab !== "all");
}

/** The search field and the privacy and kind filters above the grid. */
export function FilterBar({
  search,
  onSearch,
  privacy,
  onPrivacy,
  tab,
  onTab,
  folder,
  onFolder,
  accepted = "media",
  ...tagging
}: Omit<FilterBarProps, "sort" | "onSort"> & { accepted?: AcceptedFiles }) {
  const ids = fieldIds("gallery-filter", ["search", "privacy", "tab"]);
  return (
    <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-[1fr_auto_auto_auto_auto_auto] lg:items-center">
      <div>
        <label htmlFor={ids.search} className="sr-only">
          Search titles, descriptions and text in images
        </label>
        <input
          id={ids.search}
          type="search"
          placeholder="Search titles, descriptions and text in images"
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
          {PRIVACIES.map((privacy) => (
            <option key={privacy} value={privacy}>
              {PRIVACY_LABEL[privacy]}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor={ids.tab} className="sr-only">
          Filter by kind
        </label>
        <select id={ids.tab} value={tab} onChange={(e) => onTab(e.target.value as Tab)} className={input}>
          {tabsFor(accepted).map((t) => (
            <option key={t.value} value={t.value}>
              {t.label}
            </option>
          ))}
        </select>
      </div>
      <FolderFilter folder={folder} onFolder={onFolder} />
      <TagFilter {...tagging} />
    </div>
  );
}

/** The tag select and the favourites box (docs/tags.md). */
function TagFilter({ tag, onTag, favorite, onFavorite }: Pick<FilterBarProps, "tag" | "onTag" | "favorite" | "onFavorite">) {
  const id = "gallery-filter-tag";
  const tags = useTags().data ?? [];
  return (
    <>
      <div>
        <label htmlFor={id} className="sr-only">
          Filter by tag
        </label>
        <select id={id} value={tag} onChange={(e) => onTag(e.target.value)} className={input}>
          <option value="">Any tag</option>
          {tags.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={favorite} onChange={(e) => onFavorite(e.target.checked)} className="h-4 w-4 accent-brand-600" />
        Favourites only
      </label>
    </>
  );
}

function FolderFilter({ folder, onFolder }: { folder: string; onFolder: (folder: string) => void }) {
  const id = "gallery-filter-folder";
  const folders = useFolders().data ?? [];
  return (
    <div>
      <label htmlFor={id} className="sr-only">
        Filter by folder
      </label>
      <select id={id} value={folder} onChange={(e) => onFolder(e.target.value)} className={input}>
        <option value="">Any folder</option>
        {folders.map((f) => (
          <option key={f.id} value={f.id}>
            {f.name}
          </option>
        ))}
      </select>
    </div>
  );
}
