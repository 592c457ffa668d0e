/** PATCH /posts/{code}: title, description, privacy, expiry, view limit and (Relay) the access list. */
import { forgetDeliverable } from "./delivery-cache";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import type { Privacy } from "./privacy";
import { syncGifWords } from "./gif-words";
import { moderator } from "@/lib/moderation/moderator";
import type { Prisma } from "@/lib/db/client";
import type { OpenedPost } from "./open";
import { postForChange, postInclude, type Viewer } from "./read";
import { indexPostWords } from "./words";
import { sortNameOf } from "./sort-keys";
import { ownTagIds } from "./tag-ids";
import { isForeignKeyViolation } from "@/lib/prisma-support";

export interface PostChanges {
  title?: string | null;
  description?: string | null;
  privacy?: Privacy;
  access?: string[];
  /** docs/expiry.md: null removes the expiry / the view limit; undefined leaves it. */
  expiresAt?: Date | null;
  maxViews?: number | null;
  /** docs/tags.md: the owner's favourite mark, and the post's tags (the owner's tag ids; replaces them). */
  favorite?: boolean;
  tagIds?: string[];
}

/** Applies what the post's rules allow (team posts stay private, restricted ones unlisted); returns the privacy afterwards. */
export async function updatePost(code: string, viewer: Viewer, changes: PostChanges): Promise<{ privacy: Privacy }> {
  const { privacy } = await applyChanges(code, viewer, changes, {});
  return { privacy: privacy as Privacy };
}

/** updatePost for PATCH /posts/{code}: the post as its owner sees it, read back by the update itself. */
export async function editPost(code: string, viewer: Viewer, changes: PostChanges): Promise<OpenedPost> {
  const likes = viewer.userId ? { where: { userId: viewer.userId }, select: { userId: true } } : false;
  const { likes: like, ...post } = await applyChanges(code, viewer, changes, { ...postInclude, likes });
  // Without a user (a team key) no like is read back: `likes` is then absent.
  return { kind: "post", post, owner: true, liked: (like?.length ?? 0) > 0 };
}

async function applyChanges<I extends Prisma.PostInclude>(
  code: string,
  viewer: Viewer,
  changes: PostChanges,
  back: I,
): Promise<Prisma.PostGetPayload<{ include: I }>> {
  const post = await postForChange(code, viewer);
  const title = changes.title === undefined ? undefined : changes.title?.trim() || null;
  const description = changes.description === undefined ? undefined : changes.description?.trim() || null;

  let privacy: Privacy | undefined = changes.privacy;
  if (post.teamId) privacy = undefined;
  else if (post.restricted && privacy === "public") privacy = "unlisted";

  const flagged = [title, description].some((t) => t && moderator().flagsText(t));

  const tagIds = await ownTagsFor(post, viewer, changes);

  let accessIds: string[] | undefined;
  if (changes.access) {
    const wanted = [...new Set(changes.access.map((u) => u.trim().toLowerCase()).filter(Boolean))];
    const users = await db().user.findMany({ where: { username: { in: wanted } }, select: { id: true, username: true } });
    const missing = wanted.filter((u) => !users.some((x) => x.username === u));
    if (missing.length) throw new DomainError("invalid_request", `Unknown usernames in access: ${missing.join(", ")}.`);
    accessIds = users.map((u) => u.id).filter((id) => id !== post.userId);
  }

  const updated = await db().$transaction(async (tx) => {
    // The access list first, so that the update below reads back the new one.
    if (accessIds) {
      await tx.postAccess.deleteMany({ where: { postId: post.id } });
      if (accessIds.length) await tx.postAccess.createMany({ data: accessIds.map((userId) => ({ postId: post.id, userId })) });
    }
    if (tagIds) {
      await tx.postTag.deleteMany({ where: { postId: post.id } });
      if (tagIds.length) await tx.postTag.createMany({ data: tagIds.map((tagId) => ({ postId: post.id, tagId })) }).catch(tagGone);
    }
    const row = await tx.post.update({
      where: { id: post.id },
      include: back,
      data: {
        ...(title !== undefined ? { title, sortName: sortNameOf(title, post.files[0]?.name) } : {}),
        ...(description !== undefined ? { description } : {}),
        ...(privacy ? { privacy } : {}),
        ...(flagged ? { moderated: true } : {}),
        ...(changes.expiresAt !== undefined ? { expiresAt: changes.expiresAt } : {}),
        ...(changes.maxViews !== undefined ? { maxViews: changes.maxViews } : {}),
        ...(changes.favorite !== undefined ? { favorite: changes.favorite } : {}),
      },
    });
    if (title !== undefined || description !== undefined) await indexPostWords(tx, row);
    // New word rows, or a privacy change: the GIF search's copy of "public GIF" follows.
    if (title !== undefined || description !== undefined || privacy) await syncGifWords(tx, post.id);
    return row;
  });
  forgetDeliverable({ code });
  return updated;
}

/** Tags and favourites are the account's own (docs/tags.md): a team post has none (403). */
async function ownTagsFor(post: { teamId: string | null }, viewer: Viewer, changes: PostChanges): Promise<string[] | undefined> {
  if (changes.favorite === undefined && changes.tagIds === undefined) return undefined;
  if (post.teamId || !viewer.userId) throw new DomainError("forbidden", "Team posts have no tags or favourites.");
  return changes.tagIds === undefined ? undefined : ownTagIds(viewer.userId, changes.tagIds);
}

/** A tag deleted between the check and the write (another tab, another client): the caller's to retry, not a 500. */
function tagGone(error: unknown): never {
  if (isForeignKeyViolation(error)) throw new DomainError("invalid_request", "tags: one of these tags was deleted meanwhile.");
  throw error;
}
