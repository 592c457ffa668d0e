"use client";
/** The gallery's filters: title search, privacy, kind and folder. */
import { useSearchParams } from "next/navigation";
import { useEffect, useId, useState } from "react";
import type { Privacy } from "./api";
import { PRIVACIES, PRIVACY_LABEL } from "./privacies";
import { useFolders } from "./folders";
import { input } from "./ui";

const TABS = [
  { value: "all", label: "All kinds" },
  { value: "images", label: "Images" },
  { value: "videos", label: "Videos" },
  { value: "gifs", label: "GIFs" },
  { value: "albums", label: "Albums" },
] as const;

type Tab = (typeof TABS)[number]["value"];
/** What GET /api/posts is asked for. */
export type Filters = { search: string; privacy: "" | Privacy; tab: Tab; folder: string };

type FilterBarProps = {
  search: string;
  onSearch: (search: string) => void;
  privacy: "" | Privacy;
  onPrivacy: (privacy: "" | Privacy) => void;
  tab: Tab;
  onTab: (tab: Tab) => void;
  /** A folder id, or "" for every post (docs/folders.md). */
  folder: string;
  onFolder: (folder: string) => void;
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
  const [folder, setFolder] = useState(useSearchParams().get("folder") ?? "");
  const debouncedSearch = useDebounced(search.trim(), 300);
  return {
    search,
    onSearch: setSearch,
    privacy,
    onPrivacy: setPrivacy,
    tab,
    onTab: setTab,
    folder,
    onFolder: setFolder,
    filters: { search: debouncedSearch, privacy, tab, folder },
  };
}

/** Whether any filter narrows the list (an empty list then says so rather than inviting a first upload). */
export function isFiltered({ search, privacy, tab, folder }: Filters): boolean {
  return Boolean(search || privacy || folder || tab !== "all");
}

/** The search field and the privacy and kind filters above the grid. */
export function FilterBar({ search, onSearch, privacy, onPrivacy, tab, onTab, folder, onFolder }: FilterBarProps) {
  const ids = { search: useId(), privacy: useId(), tab: useId() };
  return (
    <div className="grid gap-3 sm:grid-cols-[1fr_auto_auto_auto]">
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
          {TABS.map((t) => (
            <option key={t.value} value={t.value}>
              {t.label}
            </option>
          ))}
        </select>
      </div>
      <FolderFilter folder={folder} onFolder={onFolder} />
    </div>
  );
}

function FolderFilter({ folder, onFolder }: { folder: string; onFolder: (folder: string) => void }) {
  const id = useId();
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
