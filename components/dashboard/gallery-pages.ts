/** The gallery's posts: GET /api/posts page by page, the next page on scroll. */
import { useInfiniteQuery } from "@tanstack/react-query";
import { type RefObject, useEffect, useRef } from "react";
import { api, type PostPage } from "./api";
import type { Filters } from "./gallery-filters";
import { DEFAULT_GALLERY_SORT } from "@/lib/posts/gallery-sorts";

const PAGE_SIZE = 30;

/** GET /api/posts page by page (cursor), with the filters as the query key. */
export function usePostPages({ search, privacy, tab, folder, sort }: Filters) {
  return useInfiniteQuery({
    queryKey: ["posts", { search, privacy, tab, folder, sort }],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) => {
      const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
      if (pageParam) params.set("cursor", pageParam);
      if (search) params.set("search", search);
      if (privacy) params.set("privacy", privacy);
      if (tab !== "all") params.set("tab", tab);
      if (folder) params.set("folder", folder);
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
