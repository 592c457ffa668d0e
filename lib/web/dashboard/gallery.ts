/**
 * The gallery's first page in the dashboard's HTML (issue 29): `GET /api/posts`'s reply byte for
 * byte, cursor included, so the client's next pages go on through the API.
 */
import type { z } from "zod";
import { sortedPageReply, type PageReply } from "@/lib/http/cursor";
import { DEFAULT_GALLERY_SORT, isGallerySort, type GallerySort } from "@/lib/posts/gallery-sorts";
import { listOwnPostsSorted } from "@/lib/posts/list";
import { likedAmong } from "@/lib/posts/read";
import { postView, type Post } from "@/lib/presenters/posts";

export const GALLERY_PAGE_SIZE = 30;

/** The listing a server-rendered first page belongs to: the client uses it only for the same one. */
export interface GalleryListing {
  sort: GallerySort;
  folder: string;
}

export interface FirstGalleryPage {
  listing: GalleryListing;
  page: PageReply<"posts", z.output<typeof Post>>;
  /** Ms since the epoch: react-query refetches it once stale. */
  readAt: number;
}

/** The page's `?sort=` and `?folder=`, as the client reads them (an unknown order is the default). */
export function galleryListingOf(params: Record<string, string | string[] | undefined>): GalleryListing | null {
  const one = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);
  const sort = one(params.sort);
  const folder = one(params.folder) ?? "";
  // A folder id the API would refuse (over 64 characters) is left to the client, which shows the API's error.
  if (folder.length > 64) return null;
  return { sort: sort && isGallerySort(sort) ? sort : DEFAULT_GALLERY_SORT, folder };
}

export async function firstGalleryPage(userId: string, listing: GalleryListing): Promise<FirstGalleryPage> {
  const readAt = Date.now();
  // The filters exactly as handleListPosts builds them: the cursor is bound to them.
  const folder = listing.folder ? { folder: listing.folder } : {};
  const filters = { search: null, privacy: null, tab: null, ...folder };
  const named = listing.sort === DEFAULT_GALLERY_SORT ? null : listing.sort;
  const page = await listOwnPostsSorted(userId, folder, listing.sort, GALLERY_PAGE_SIZE);
  const liked = await likedAmong(
    userId,
    page.items.map((p) => p.id),
  );
  const reply = sortedPageReply("posts", "listPosts", named, filters, page, (p) =>
    postView(p, { owner: true, liked: liked.has(p.id), surface: "api" }),
  );
  return { listing, page: reply, readAt };
}
