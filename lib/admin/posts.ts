/** The console's post decisions (docs/admin.md); moderation itself is lib/posts/moderation.ts, as the CLI uses it. */
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { moderatePost, unmoderatePost, type PostModerationState } from "@/lib/posts/moderation";
import { deletePostAsOperator } from "@/lib/posts/remove";
import { recordAudit, type Actor } from "@/lib/audit/log";

export const MODERATION_PAGE_SIZE = 20;

export interface PreviewFile {
  index: number;
  name: string;
  mimeType: string;
  hasThumbnail: boolean;
}

export interface QueuedPost {
  code: string;
  title: string | null;
  description: string | null;
  privacy: string;
  createdAt: Date;
  fileCount: number;
  author: { id: string; username: string; suspended: boolean } | null;
  files: PreviewFile[];
}

export interface ModerationQueue {
  posts: QueuedPost[];
  total: number;
  page: number;
  pageCount: number;
}

const PREVIEW_FILES = 4;

const queuedSelect = {
  code: true,
  title: true,
  description: true,
  privacy: true,
  createdAt: true,
  fileCount: true,
  user: { select: { id: true, displayUsername: true, suspended: true } },
  files: {
    select: { index: true, name: true, mimeType: true, thumbnailKey: true },
    orderBy: { index: "asc" },
    take: PREVIEW_FILES,
  },
} as const;

type QueuedRow = {
  code: string;
  title: string | null;
  description: string | null;
  privacy: string;
  createdAt: Date;
  fileCount: number;
  user: { id: string; displayUsername: string; suspended: boolean } | null;
  files: { index: number; name: string; mimeType: string; thumbnailKey: string | null }[];
};

const toQueued = (row: QueuedRow): QueuedPost => ({
  code: row.code,
  title: row.title,
  description: row.description,
  privacy: row.privacy,
  createdAt: row.createdAt,
  fileCount: row.fileCount,
  author: row.user && { id: row.user.id, username: row.user.displayUsername, suspended: row.user.suspended },
  files: row.files.map((f) => ({ index: f.index, name: f.name, mimeType: f.mimeType, hasThumbnail: f.thumbnailKey !== null })),
});

/** Oldest first: the queue is worked from the longest-waiting post. */
export async function moderationQueue(input: { page?: number; pageSize?: number } = {}): Promise<ModerationQueue> {
  const pageSize = input.pageSize ?? MODERATION_PAGE_SIZE;
  const where = { moderated: true };
  const total = await db().post.count({ where });
  const pageCount = Math.max(1, Math.ceil(total / pageSize));
  const page = Math.min(Math.max(1, Math.floor(input.page ?? 1)), pageCount);
  const rows = await db().post.findMany({
    where,
    select: queuedSelect,
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    skip: (page - 1) * pageSize,
    take: pageSize,
  });
  return { posts: rows.map(toQueued), total, page, pageCount };
}

export async function postPreviews(codes: readonly string[]): Promise<Map<string, QueuedPost>> {
  if (codes.length === 0) return new Map();
  const rows = await db().post.findMany({ where: { code: { in: [...new Set(codes)] } }, select: queuedSelect });
  return new Map(rows.map((row) => [row.code, toQueued(row)]));
}

const postTarget = (code: string) => ({ type: "post" as const, id: code, label: code });

export async function releasePost(actor: Actor, code: string): Promise<PostModerationState> {
  const post = await unmoderatePost(code);
  await recordAudit(actor, "post.release", postTarget(post.code));
  return post;
}

export async function quarantinePost(actor: Actor, code: string): Promise<PostModerationState> {
  const post = await moderatePost(code);
  await recordAudit(actor, "post.moderate", postTarget(post.code));
  return post;
}

export async function removePost(actor: Actor, code: string): Promise<void> {
  const row = await db().post.findUnique({ where: { code }, select: { title: true, user: { select: { displayUsername: true } } } });
  if (!row) throw new DomainError("not_found", `No post '${code}'.`);
  await deletePostAsOperator(code);
  // The post is gone, so the entry keeps what identified it.
  await recordAudit(actor, "post.delete", postTarget(code), { title: row.title, author: row.user?.displayUsername ?? null });
}

export interface PreviewObject {
  key: string;
  mimeType: string;
}

/** Served only by the console's admin-only route, never by the CDN, which answers 403 `moderated` (docs/admin.md). */
export async function previewObject(code: string, index: number, thumbnail: boolean): Promise<PreviewObject | null> {
  const file = await db().file.findFirst({
    where: { index, post: { code } },
    select: { storageKey: true, mimeType: true, thumbnailKey: true },
  });
  if (!file) return null;
  if (thumbnail) return file.thumbnailKey ? { key: file.thumbnailKey, mimeType: "image/jpeg" } : null;
  return { key: file.storageKey, mimeType: file.mimeType };
}
