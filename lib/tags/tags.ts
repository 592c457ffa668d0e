/** Tags (docs/tags.md): the owner's alone, on personal posts only (a team's members share no tags). */
import { sqltag as sql } from "@prisma/client/runtime/client";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { isUniqueViolation } from "@/lib/prisma-support";
import { postForChange, type PostRecord, type Viewer } from "@/lib/posts/read";
import { POST_TAGS_MAX } from "@/lib/posts/tag-ids";

export const TAG_NAME_MAX_LENGTH = 32;
/** Tags per account: enough to sort a gallery, small enough to list (and show as filters) in one reply. */
export const TAGS_MAX = 100;
/** The colour of a tag created without one: a neutral slate that reads on light and dark tiles. */
export const DEFAULT_TAG_COLOR = "#64748b";
export const TAG_COLOR_PATTERN = /^#[0-9a-f]{6}$/;

export interface TagRecord {
  id: string;
  name: string;
  color: string;
  postCount: number;
  createdAt: Date;
}

const invalid = (message: string) => new DomainError("invalid_request", message);
export const tagNotFound = () => new DomainError("not_found", "No such tag.");

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** A tag name as stored: trimmed, NFC, one line, 1 to TAG_NAME_MAX_LENGTH characters. */
export function tagName(input: string): string {
  const name = input.normalize("NFC").trim();
  if (!name) throw invalid("name must not be empty.");
  if ([...name].length > TAG_NAME_MAX_LENGTH) throw invalid(`name must be at most ${TAG_NAME_MAX_LENGTH} characters.`);
  if (CONTROL.test(name)) throw invalid("name must be one line without control characters.");
  return name;
}

export function tagColor(input: string): string {
  const color = input.trim().toLowerCase();
  if (!TAG_COLOR_PATTERN.test(color)) throw invalid("color must be a hex colour such as #3b82f6.");
  return color;
}

/** Names compare without regard to case: "Cats" and "cats" are one tag. */
const nameKeyOf = (name: string): string => name.toLowerCase();
const taken = (name: string) => invalid(`A tag named '${name}' exists already.`);

const withCount = { _count: { select: { posts: true } } } as const;
type TagRow = { id: string; name: string; color: string; createdAt: Date; _count: { posts: number } };

const record = (row: TagRow): TagRecord => ({
  id: row.id,
  name: row.name,
  color: row.color,
  postCount: row._count.posts,
  createdAt: row.createdAt,
});

export async function listTags(userId: string): Promise<TagRecord[]> {
  const rows = await db().tag.findMany({ where: { userId }, include: withCount, orderBy: [{ nameKey: "asc" }, { id: "asc" }] });
  return rows.map(record);
}

export async function createTag(userId: string, input: { name: string; color?: string }): Promise<TagRecord> {
  const name = tagName(input.name);
  const color = input.color === undefined ? DEFAULT_TAG_COLOR : tagColor(input.color);
  if ((await db().tag.count({ where: { userId } })) >= TAGS_MAX) throw invalid(`An account can have at most ${TAGS_MAX} tags.`);
  try {
    return record(await db().tag.create({ data: { userId, name, nameKey: nameKeyOf(name), color }, include: withCount }));
  } catch (error) {
    if (isUniqueViolation(error)) throw taken(name);
    throw error;
  }
}

/** The account's tag by id; 404 when it does not exist or is someone else's (the same answer). */
export async function getTag(userId: string, id: string): Promise<TagRecord> {
  const row = await db().tag.findFirst({ where: { id, userId }, include: withCount });
  if (!row) throw tagNotFound();
  return record(row);
}

export async function updateTag(userId: string, id: string, change: { name?: string; color?: string }): Promise<TagRecord> {
  await getTag(userId, id);
  const name = change.name === undefined ? undefined : tagName(change.name);
  const color = change.color === undefined ? undefined : tagColor(change.color);
  try {
    const row = await db().tag.update({
      where: { id },
      data: { ...(name !== undefined ? { name, nameKey: nameKeyOf(name) } : {}), ...(color !== undefined ? { color } : {}) },
      include: withCount,
    });
    return record(row);
  } catch (error) {
    if (isUniqueViolation(error) && name !== undefined) throw taken(name);
    throw error;
  }
}

export async function deleteTag(userId: string, id: string): Promise<void> {
  const { count } = await db().tag.deleteMany({ where: { id, userId } });
  if (!count) throw tagNotFound();
}

/** The viewer's own personal post, for a tag or favourite change; 403 for a team post. */
export async function taggablePost(code: string, viewer: Viewer): Promise<PostRecord> {
  const post = await postForChange(code, viewer);
  if (post.teamId || !viewer.userId) throw new DomainError("forbidden", "Team posts have no tags or favourites.");
  return post;
}

export async function addTagToPost(code: string, viewer: Viewer, tagId: string): Promise<void> {
  const post = await taggablePost(code, viewer);
  if (post.tags.some((t) => t.tagId === tagId)) return;
  if (post.tags.length >= POST_TAGS_MAX) throw invalid(`A post can have at most ${POST_TAGS_MAX} tags.`);
  // Raw because Prisma's createMany cannot skip duplicates on SQLite: a concurrent add of the same tag is no error.
  await db().$executeRaw(
    sql`INSERT INTO "PostTag" ("postId", "tagId", "addedAt") VALUES (${post.id}, ${tagId}, ${new Date()}) ON CONFLICT DO NOTHING`,
  );
}

export async function removeTagFromPost(code: string, viewer: Viewer, tagId: string): Promise<void> {
  const post = await taggablePost(code, viewer);
  const { count } = await db().postTag.deleteMany({ where: { postId: post.id, tagId } });
  if (!count) throw new DomainError("not_found", "The post does not have this tag.");
}
