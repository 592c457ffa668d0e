/** PATCH /posts/{code}: title, description, privacy, expiry, view limit and (Relay) the access list. */
import { forgetDeliverable } from "./delivery-cache";
import { db } from "../db/client";
import { DomainError } from "../errors";
import type { Privacy } from "./privacy";
import { syncGifWords } from "./gif-words";
import { moderator } from "../moderation/moderator";
import { postForChange, type Viewer } from "./read";
import { indexPostWords } from "./words";

export interface PostChanges {
  title?: string | null;
  description?: string | null;
  privacy?: Privacy;
  /** Usernames; replaces the list. */
  access?: string[];
  /** docs/expiry.md: null removes the expiry / the view limit; undefined leaves it. */
  expiresAt?: Date | null;
  maxViews?: number | null;
}

/**
 * Applies the changes the post's rules allow: team posts stay private; a restricted
 * post asked to become public becomes unlisted; a flagged title or description
 * quarantines the post.
 */
/** Returns the privacy the post has afterwards (which the rules above may keep from changing). */
export async function updatePost(code: string, viewer: Viewer, changes: PostChanges): Promise<{ privacy: Privacy }> {
  const post = await postForChange(code, viewer);
  const title = changes.title === undefined ? undefined : changes.title?.trim() || null;
  const description = changes.description === undefined ? undefined : changes.description?.trim() || null;

  let privacy: Privacy | undefined = changes.privacy;
  if (post.teamId) privacy = undefined;
  else if (post.restricted && privacy === "public") privacy = "unlisted";

  const flagged = [title, description].some((t) => t && moderator().flagsText(t));

  let accessIds: string[] | undefined;
  if (changes.access) {
    const wanted = [...new Set(changes.access.map((u) => u.trim().toLowerCase()).filter(Boolean))];
    const users = await db().user.findMany({ where: { username: { in: wanted } }, select: { id: true, username: true } });
    const missing = wanted.filter((u) => !users.some((x) => x.username === u));
    if (missing.length) throw new DomainError("invalid_request", `Unknown usernames in access: ${missing.join(", ")}.`);
    accessIds = users.map((u) => u.id).filter((id) => id !== post.userId);
  }

  const updated = await db().$transaction(async (tx) => {
    const row = await tx.post.update({
      where: { id: post.id },
      data: {
        ...(title !== undefined ? { title } : {}),
        ...(description !== undefined ? { description } : {}),
        ...(privacy ? { privacy } : {}),
        ...(flagged ? { moderated: true } : {}),
        ...(changes.expiresAt !== undefined ? { expiresAt: changes.expiresAt } : {}),
        ...(changes.maxViews !== undefined ? { maxViews: changes.maxViews } : {}),
      },
    });
    if (title !== undefined || description !== undefined) await indexPostWords(tx, row);
    // New word rows, or a privacy change: the GIF search's copy of "public GIF" follows.
    if (title !== undefined || description !== undefined || privacy) await syncGifWords(tx, post.id);
    if (accessIds) {
      await tx.postAccess.deleteMany({ where: { postId: post.id } });
      if (accessIds.length) await tx.postAccess.createMany({ data: accessIds.map((userId) => ({ postId: post.id, userId })) });
    }
    return row;
  });
  forgetDeliverable({ code });
  return { privacy: updated.privacy as Privacy };
}
