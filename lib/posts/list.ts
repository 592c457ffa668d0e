/** Paged post lists, newest first: the caller's gallery and a user's public posts. */
import type { Prisma } from "../db/client";
import { db } from "../db/client";
import { afterPosition, keysetPage, newestFirst, type Page, type Position } from "../db/paging";
import { DomainError } from "../errors";
import type { Privacy } from "./privacy";
import { findUser } from "../users/profile";
import { notExpiredWhere } from "./expiry-rules";
import { postInclude, type PostRecord } from "./read";
import { normaliseWords, prefixUpperBound } from "./words";

export const GALLERY_TABS = ["all", "images", "videos", "gifs", "albums"] as const;
export type GalleryTab = (typeof GALLERY_TABS)[number];

export interface GalleryFilters {
  search?: string;
  privacy?: Privacy;
  tab?: GalleryTab;
  /** Only posts in this folder of the caller's (docs/folders.md). */
  folder?: string;
}

const positionOf = (p: PostRecord): Position => ({ t: p.createdAt.getTime(), id: p.id });

/** Every search word must be the start of a word of the title or description. */
export function wordFilters(search: string | undefined, maxWords = 6): Prisma.PostWhereInput[] {
  return normaliseWords(search ?? "")
    .slice(0, maxWords)
    .map((w) => ({ words: { some: { word: { gte: w, lt: prefixUpperBound(w) } } } }));
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
    default:
      return {};
  }
}

/** GET /posts: the caller's own (non-team) posts. */
export async function listOwnPosts(userId: string, filters: GalleryFilters, limit: number, after?: Position): Promise<Page<PostRecord>> {
  const where: Prisma.PostWhereInput = {
    userId,
    teamId: null,
    ...(filters.privacy ? { privacy: filters.privacy } : {}),
    ...tabFilter(filters.tab),
    ...(filters.folder ? { folders: { some: { folderId: filters.folder } } } : {}),
    // An expired post is gone for its owner too (docs/expiry.md), even before the sweep.
    AND: [...wordFilters(filters.search), afterPosition("createdAt", after), notExpiredWhere()],
  };
  return keysetPage(
    limit,
    (take) => db().post.findMany({ where, include: postInclude, orderBy: newestFirst("createdAt"), take }),
    positionOf,
  );
}

/** The conditions for a post anyone may see in public lists. */
export const publicPostWhere: Prisma.PostWhereInput = {
  privacy: "public",
  moderated: false,
  draft: false,
  teamId: null,
};

/**
 * What public lists (a user's posts, discover, GIFs) show to anyone: public posts that
 * have not expired, with no view limit (a listing would spend or reveal the views) and no
 * share-page password (docs/expiry.md, docs/share-passwords.md). Goes in an `AND` list.
 */
export function listedPostWhere(now: Date = new Date()): Prisma.PostWhereInput {
  return { ...publicPostWhere, maxViews: null, passwordHash: null, AND: [notExpiredWhere(now)] };
}

/**
 * GET /users/{id}/posts: public posts of a user; 404 unknown, 403 suspended (no `username`:
 * only GET /users/{id} gives it; docs/uploads.md, "Posts").
 */
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
