/** Paged post lists, newest first: the caller's gallery and a user's public posts. */
import type { Prisma } from "@/lib/db/client";
import { db } from "@/lib/db/client";
import {
  afterKey,
  afterPosition,
  type Direction,
  keyOrder,
  type KeyPosition,
  keysetPage,
  newestFirst,
  type Page,
  type Position,
} from "@/lib/db/paging";
import { DomainError } from "@/lib/errors";
import type { Privacy } from "./privacy";
import { findUser } from "@/lib/users/profile";
import { notExpiredWhere } from "./expiry-rules";
import { postInclude, type PostRecord } from "./read";
import { normaliseWords, prefixUpperBound } from "./words";
import { ownSearchWord } from "./file-text";
import { DEFAULT_GALLERY_SORT, type GallerySort } from "./gallery-sorts";
import { SORT_NAME_MAX_LENGTH } from "./sort-keys";

export const GALLERY_TABS = ["all", "images", "videos", "gifs", "albums", "texts", "files"] as const;
export type GalleryTab = (typeof GALLERY_TABS)[number];

export interface GalleryFilters {
  search?: string;
  privacy?: Privacy;
  tab?: GalleryTab;
  /** Only posts in this folder of the caller's (docs/folders.md). */
  folder?: string;
  /** Only posts with this tag of the caller's, and only (un)marked favourites (docs/tags.md). */
  tag?: string;
  favorite?: boolean;
}

const positionOf = (p: PostRecord): Position => ({ t: p.createdAt.getTime(), id: p.id });

export { DEFAULT_GALLERY_SORT, GALLERY_SORTS, type GallerySort } from "./gallery-sorts";

interface SortKey {
  field: "createdAt" | "totalSize" | "viewCount" | "sortName";
  first: Direction;
  of: (p: PostRecord) => number | string;
  column: (key: number | string) => unknown;
  accepts: (key: number | string) => boolean;
}

// Dates as ms within what a Date holds; bytes and views as whole numbers; names as the
// folded names are (lib/posts/sort-keys.ts).
const wholeNumber = (k: number | string) => Number.isSafeInteger(k) && (k as number) >= 0;

const SORT_KEYS: Record<string, SortKey> = {
  date: {
    field: "createdAt",
    first: "desc",
    of: (p) => p.createdAt.getTime(),
    column: (k) => new Date(k),
    accepts: (k) => Number.isSafeInteger(k) && !Number.isNaN(new Date(k).getTime()),
  },
  // Bytes as a number: exact below 2^53 (8 PiB), far past any post.
  size: { field: "totalSize", first: "desc", of: (p) => Number(p.totalSize), column: (k) => BigInt(k), accepts: wholeNumber },
  views: {
    field: "viewCount",
    first: "desc",
    of: (p) => p.viewCount,
    column: (k) => k,
    accepts: (k) => wholeNumber(k) && (k as number) < 2 ** 31,
  },
  name: {
    field: "sortName",
    first: "asc",
    of: (p) => p.sortName,
    column: (k) => k,
    accepts: (k) => typeof k === "string" && k.length <= SORT_NAME_MAX_LENGTH * 2,
  },
};

export function gallerySortKey(sort: GallerySort): SortKey & { direction: Direction } {
  const reversed = sort.startsWith("-");
  const key = SORT_KEYS[reversed ? sort.slice(1) : sort];
  const flip: Direction = key.first === "desc" ? "asc" : "desc";
  return { ...key, direction: reversed ? flip : key.first };
}

export const gallerySortAccepts = (sort: GallerySort): ((key: number | string) => boolean) => gallerySortKey(sort).accepts;

/** Every search word must start a word of the title or description, or in the owner's search (`readText`) of image text (docs/ocr.md). */
export function wordFilters(search: string | undefined, maxWords = 6, readText = false): Prisma.PostWhereInput[] {
  return normaliseWords(search ?? "")
    .slice(0, maxWords)
    .map((w) => (readText ? ownSearchWord(w) : { words: { some: { word: { gte: w, lt: prefixUpperBound(w) } } } }));
}

function tabFilter(tab: GalleryTab | undefined): Prisma.PostWhereInput {
  switch (tab) {
    case "images":
      return { files: { every: { mimeType: { startsWith: "image/" } } } };
    case "videos":
      return { files: { some: { mimeType: { startsWith: "video/" } } } };
    case "gifs":
      return { firstFileGif: true };
    case "albums":
      return { fileCount: { gt: 1 } };
    // Pastes and other files (docs/file-kinds.md), when the operator lets them in.
    case "texts":
      return { files: { some: { kind: "text" } } };
    case "files":
      return { files: { some: { kind: "file" } } };
    default:
      return {};
  }
}

/** GET /posts: the caller's own posts; `readText` false is bench:ocr's baseline. */
export async function listOwnPosts(
  userId: string,
  filters: GalleryFilters,
  limit: number,
  after?: Position,
  readText = true,
): Promise<Page<PostRecord>> {
  const page = await listOwnPostsSorted(userId, filters, DEFAULT_GALLERY_SORT, limit, after && { key: after.t, id: after.id }, readText);
  return { ...page, next: page.next && { t: page.next.key as number, id: page.next.id } };
}

/** (key, id) keyset paging in the order's direction (docs/gallery-sort.md). */
export async function listOwnPostsSorted(
  userId: string,
  filters: GalleryFilters,
  sort: GallerySort,
  limit: number,
  after?: KeyPosition,
  readText = true,
): Promise<Page<PostRecord, KeyPosition>> {
  const order = gallerySortKey(sort);
  const where: Prisma.PostWhereInput = {
    userId,
    teamId: null,
    ...(filters.privacy ? { privacy: filters.privacy } : {}),
    ...tabFilter(filters.tab),
    ...(filters.folder ? { folders: { some: { folderId: filters.folder } } } : {}),
    ...(filters.tag ? { tags: { some: { tagId: filters.tag } } } : {}),
    ...(filters.favorite !== undefined ? { favorite: filters.favorite } : {}),
    // An expired post is gone for its owner too (docs/expiry.md), even before the sweep.
    AND: [...wordFilters(filters.search, 6, readText), afterKey(order.field, order.direction, after, order.column), notExpiredWhere()],
  };
  return keysetPage(
    limit,
    (take) => db().post.findMany({ where, include: postInclude, orderBy: keyOrder(order.field, order.direction), take }),
    (p): KeyPosition => ({ key: order.of(p), id: p.id }),
  );
}

export const publicPostWhere: Prisma.PostWhereInput = {
  privacy: "public",
  moderated: false,
  draft: false,
  teamId: null,
};

/** Public posts anyone may see: not expired, no view limit (a listing would spend the views), no password. */
export function listedPostWhere(now: Date = new Date()): Prisma.PostWhereInput {
  return { ...publicPostWhere, maxViews: null, passwordHash: null, AND: [notExpiredWhere(now)] };
}

/** GET /users/{id}/posts (docs/uploads.md, "Posts"). */
export async function listUserPosts(ref: string, limit: number, after?: Position): Promise<Page<PostRecord>> {
  const user = await findUser(ref);
  if (!user) throw new DomainError("not_found", "No such user.");
  if (user.suspended) throw new DomainError("suspended", "This user is suspended.");
  const where: Prisma.PostWhereInput = { ...listedPostWhere(), userId: user.id, ...afterPosition("createdAt", after) };
  return keysetPage(
    limit,
    (take) => db().post.findMany({ where, include: postInclude, orderBy: newestFirst("createdAt"), take }),
    positionOf,
  );
}
