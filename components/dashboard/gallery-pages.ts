/** The gallery's posts: GET /api/posts page by page, the next page on scroll. */
import { type InfiniteData, useInfiniteQuery } from "@tanstack/react-query";
import { type RefObject, useEffect, useRef } from "react";
import { api, type PostPage } from "./api";
import type { Filters } from "./gallery-filters";
import { DEFAULT_GALLERY_SORT } from "@/lib/posts/gallery-sorts";
import type { FirstGalleryPage } from "@/lib/web/dashboard/gallery";

/** As the server's first page (GALLERY_PAGE_SIZE in lib/web/dashboard/gallery.ts). */
const PAGE_SIZE = 30;

/**
 * The server-rendered first page as the query's initial data, when it belongs to the listing
 * asked for (no search, privacy or kind filter; the same folder and order). Dated when it was
 * read, so the query refetches it only once it is stale, as it would a fetched page.
 */
function initialPages(
  { search, privacy, tab, folder, tag, favorite, sort }: Filters,
  first: FirstGalleryPage | undefined,
): { initialData?: InfiniteData<PostPage, string | null>; initialDataUpdatedAt?: number } {
  if (!first || search || privacy || tag || favorite || tab !== "all" || folder !== first.listing.folder || sort !== first.listing.sort)
    return {};
  return { initialData: { pages: [first.page], pageParams: [null] }, initialDataUpdatedAt: first.readAt };
}

/**
 * GET /api/posts page by page (cursor), with the filters as the query key; the first page of
 * the listing the server rendered comes from `first` (no second fetch of it).
 */
export function usePostPages(filters: Filters, first?: FirstGalleryPage) {
  const { search, privacy, tab, folder, tag, favorite, sort } = filters;
  return useInfiniteQuery({
    ...initialPages(filters, first),
    queryKey: ["posts", { search, privacy, tab, folder, tag, favorite, sort }],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) => {
      const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
      if (pageParam) params.set("cursor", pageParam);
      if (search) params.set("search", search);
      if (privacy) params.set("privacy", privacy);
      if (tab !== "all") params.set("tab", tab);
      if (folder) params.set("folder", folder);
      if (tag) params.set("tag", tag);
      if (favorite) params.set("favorite", "true");
      // The default order is asked for as before, without `sort` (docs/gallery-sort.md).
      if (sort !== DEFAULT_GALLERY_SORT) params.set("sort", sort);
      return api<PostPage>(`/api/posts?${params}`, { signal });
    },
    getNextPageParam: (last) => (last.has_more ? last.next_cursor : null),
  });
}

/** Infinite scroll: the next page loads when the returned sentinel (below the grid) comes into view. */
export function useNextPageOnScroll({
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
