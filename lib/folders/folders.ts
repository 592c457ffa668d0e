/** Folders (docs/folders.md): named sets of one user's posts; memberships cascade with the post. */
import { sqltag as sql } from "@prisma/client/runtime/client";
import { env } from "@/lib/config/env";
import type { Prisma } from "@/lib/db/client";
import { db } from "@/lib/db/client";
import { afterPosition, keysetPage, newestFirst, type Page, type Position } from "@/lib/db/paging";
import { DomainError } from "@/lib/errors";
import { isUniqueViolation } from "@/lib/prisma-support";
import { newShareCode } from "@/lib/posts/codes";
import { notExpiredWhere } from "@/lib/posts/expiry-rules";
import { postForChange, postInclude, type PostRecord, type Viewer } from "@/lib/posts/read";
import { type GuestSettings, guestSettingsOf } from "./guest";

export const FOLDER_PRIVACIES = ["public", "private"] as const;
export type FolderPrivacy = (typeof FOLDER_PRIVACIES)[number];
export const FOLDER_NAME_MAX_LENGTH = 64;
/** Folders per user: enough for any real sorting, small enough to list in one reply. */
export const FOLDERS_MAX = 200;

export interface FolderRecord {
  id: string;
  code: string;
  userId: string;
  name: string;
  privacy: FolderPrivacy;
  postCount: number;
  createdAt: Date;
  updatedAt: Date;
  /** Guest uploads (docs/guest-uploads.md): the owner's settings and what guests sent. */
  guest: GuestSettings;
}

export const folderPageUrl = (code: string): string => `${env().PUBLIC_URL}/f/${code}`;

const invalid = (message: string) => new DomainError("invalid_request", message);
export const folderNotFound = () => new DomainError("not_found", "No such folder.");

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function folderName(input: string): string {
  const name = input.normalize("NFC").trim();
  if (!name) throw invalid("name must not be empty.");
  if ([...name].length > FOLDER_NAME_MAX_LENGTH) throw invalid(`name must be at most ${FOLDER_NAME_MAX_LENGTH} characters.`);
  if (CONTROL.test(name)) throw invalid("name must be one line without control characters.");
  return name;
}

/** Names compare without regard to case: "Cats" and "cats" are one folder. */
const nameKeyOf = (name: string): string => name.toLowerCase();

type FolderRow = Prisma.FolderGetPayload<{ include: { _count: { select: { posts: true } } } }>;
const withCount = { _count: { select: { posts: true } } } as const;

function record(row: FolderRow): FolderRecord {
  return {
    id: row.id,
    code: row.code,
    userId: row.userId,
    name: row.name,
    privacy: row.privacy === "public" ? "public" : "private",
    postCount: row._count.posts,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    guest: guestSettingsOf(row),
  };
}

const taken = (name: string) => invalid(`A folder named '${name}' exists already.`);

export async function listFolders(userId: string): Promise<FolderRecord[]> {
  const rows = await db().folder.findMany({ where: { userId }, include: withCount, orderBy: [{ nameKey: "asc" }, { id: "asc" }] });
  return rows.map(record);
}

export async function createFolder(userId: string, input: { name: string; privacy?: FolderPrivacy }): Promise<FolderRecord> {
  const name = folderName(input.name);
  if ((await db().folder.count({ where: { userId } })) >= FOLDERS_MAX) throw invalid(`A user can have at most ${FOLDERS_MAX} folders.`);
  try {
    const row = await db().folder.create({
      data: { userId, name, nameKey: nameKeyOf(name), code: newShareCode(), privacy: input.privacy ?? "private" },
      include: withCount,
    });
    return record(row);
  } catch (error) {
    if (isUniqueViolation(error)) throw taken(name);
    throw error;
  }
}

export async function getFolder(userId: string, id: string): Promise<FolderRecord> {
  const row = await db().folder.findFirst({ where: { id, userId }, include: withCount });
  if (!row) throw folderNotFound();
  return record(row);
}

export async function updateFolder(userId: string, id: string, change: { name?: string; privacy?: FolderPrivacy }): Promise<FolderRecord> {
  await getFolder(userId, id);
  const name = change.name === undefined ? undefined : folderName(change.name);
  try {
    const row = await db().folder.update({
      where: { id },
      data: { ...(name !== undefined ? { name, nameKey: nameKeyOf(name) } : {}), ...(change.privacy ? { privacy: change.privacy } : {}) },
      include: withCount,
    });
    return record(row);
  } catch (error) {
    if (isUniqueViolation(error) && name !== undefined) throw taken(name);
    throw error;
  }
}

export async function deleteFolder(userId: string, id: string): Promise<void> {
  const { count } = await db().folder.deleteMany({ where: { id, userId } });
  if (!count) throw folderNotFound();
}

/** The upload's `folder` header: by id, else by name (any case), else created; racing creators get the same folder. */
export async function folderForUpload(userId: string, ref: string): Promise<string> {
  const byId = await db().folder.findFirst({ where: { id: ref, userId }, select: { id: true } });
  if (byId) return byId.id;
  const name = folderName(ref);
  const where = { userId_nameKey: { userId, nameKey: nameKeyOf(name) } };
  const byName = await db().folder.findUnique({ where, select: { id: true } });
  if (byName) return byName.id;
  try {
    return (await createFolder(userId, { name })).id;
  } catch (error) {
    const again = await db().folder.findUnique({ where, select: { id: true } });
    if (again) return again.id;
    throw error;
  }
}

export async function addToFolder(folderId: string, postIds: readonly string[]): Promise<void> {
  // Raw because Prisma's createMany cannot skip duplicates on SQLite; ON CONFLICT reads the same on both databases.
  for (const postId of postIds) {
    await db().$executeRaw(
      sql`INSERT INTO "FolderPost" ("folderId", "postId", "addedAt") VALUES (${folderId}, ${postId}, ${new Date()}) ON CONFLICT DO NOTHING`,
    );
  }
}

/** Batch action `folder_add` for one post: the viewer's own post (not a team post) goes into their folder. */
export async function addPostToFolder(code: string, viewer: Viewer, folderId: string): Promise<void> {
  const post = await postForChange(code, viewer);
  if (post.teamId) throw new DomainError("forbidden", "Team posts cannot be put in folders.");
  await addToFolder(folderId, [post.id]);
}

/** Batch action `folder_remove` for one post: 404 when the post is not in the folder. */
export async function removePostFromFolder(code: string, folderId: string): Promise<void> {
  const { count } = await db().folderPost.deleteMany({ where: { folderId, post: { code } } });
  if (!count) throw new DomainError("not_found", "The post is not in this folder.");
}

export async function findPublicFolder(code: string): Promise<(FolderRecord & { username: string }) | null> {
  const row = await db().folder.findUnique({
    where: { code },
    include: { ...withCount, user: { select: { displayUsername: true, suspended: true } } },
  });
  if (row?.privacy !== "public" || row.user.suspended) return null;
  return { ...record(row), username: row.user.displayUsername };
}

/** Public and unlisted posts only, not moderated, drafts or expired, no view limit (a listing would spend views) or password. */
export function folderPageWhere(folderId: string, now: Date = new Date()): Prisma.PostWhereInput {
  return {
    folders: { some: { folderId } },
    privacy: { in: ["public", "unlisted"] },
    moderated: false,
    draft: false,
    teamId: null,
    maxViews: null,
    passwordHash: null,
    AND: [notExpiredWhere(now)],
  };
}

export async function listFolderPage(folderId: string, limit: number, after?: Position): Promise<Page<PostRecord>> {
  const where: Prisma.PostWhereInput = { ...folderPageWhere(folderId), AND: [notExpiredWhere(), afterPosition("createdAt", after)] };
  return keysetPage(
    limit,
    (take) => db().post.findMany({ where, include: postInclude, orderBy: newestFirst("createdAt"), take }),
    (p) => ({ t: p.createdAt.getTime(), id: p.id }),
  );
}

export async function foldersOfPosts(postIds: readonly string[]): Promise<Map<string, { id: string; name: string }[]>> {
  const rows = await db().folderPost.findMany({
    where: { postId: { in: [...postIds] } },
    include: { folder: { select: { id: true, name: true } } },
  });
  const map = new Map<string, { id: string; name: string }[]>();
  for (const row of rows) map.set(row.postId, [...(map.get(row.postId) ?? []), row.folder]);
  return map;
}
