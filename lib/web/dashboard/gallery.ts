/**
 * The gallery's first page, read by the dashboard's server component so the first tiles
 * (and the page's largest image) are in the HTML instead of waiting for the client's
 * JavaScript and a `GET /api/posts` round trip (issue 29). The same verbs and presenters as
 * that endpoint (lib/routes/posts.ts `handleListPosts`): its reply, byte for byte the shape
 * the client's react-query would have fetched, cursor included, so the next pages go on
 * from it through the API.
 */
import type { z } from "zod";
import { sortedPageReply, type PageReply } from "@/lib/http/cursor";
import { DEFAULT_GALLERY_SORT, isGallerySort, type GallerySort } from "@/lib/posts/gallery-sorts";
import { listOwnPostsSorted } from "@/lib/posts/list";
import { likedAmong } from "@/lib/posts/read";
import { postView, type Post } from "@/lib/presenters/posts";

/** What the client asks for per page (components/dashboard/gallery-pages.ts). */
export const GALLERY_PAGE_SIZE = 30;

/** The listing a server-rendered first page belongs to: the client uses it only for the same one. */
export interface GalleryListing {
  sort: GallerySort;
  /** A folder id, or "" for every post. */
  folder: string;
}

export interface FirstGalleryPage {
  listing: GalleryListing;
  page: PageReply<"posts", z.output<typeof Post>>;
  /** When it was read (ms since the epoch): react-query refetches it once it is older than its stale time. */
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

/** The owner's first page of posts for `listing`, as `GET /api/posts` answers a session (surface api, owner). */
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
