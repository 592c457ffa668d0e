/**
 * Expiry and view limits (docs/expiry.md). A post may carry `expiresAt` (a time) and
 * `maxViews` (a number of views). Past `expiresAt` the post is gone: every read answers
 * 404, /cdn refuses its files, and the post is deleted (rows, then stored files) by the
 * same function as a delete, at once when a read notices it and otherwise by the sweep.
 *
 * A view limit is spent by people's views (lib/posts/views.ts, countLimitedView): the
 * Nth view is served and moves `expiresAt` to at most VIEW_LIMIT_GRACE_SECONDS from then, so the
 * Nth viewer's page can still load its media; every later view is refused with 404.
 */
import { db } from "@/lib/db/client";
import { isExpired } from "./expiry-rules";
import { removePostRecord } from "./erase";
import { findPostByCode } from "./record";

/**
 * Deletes the post behind `code` when it has expired (re-read from the database, so a
 * cached copy never deletes a post whose owner just extended it). True when it did.
 */
export async function expireIfDue(code: string, now: number = Date.now()): Promise<boolean> {
  const post = await findPostByCode(code);
  if (!post || !isExpired(post, now)) return false;
  return removePostRecord(post);
}

/** Codes being deleted by expireSoon in this process: a burst of hits on one expired link deletes once. */
const deleting = new Set<string>();

/** expireIfDue without waiting: a read that noticed an expired post must not wait on the delete. */
export function expireSoon(code: string): void {
  if (deleting.has(code)) return;
  deleting.add(code);
  expireIfDue(code)
    .catch((error: unknown) => console.error("expiry: delete failed", error))
    .finally(() => deleting.delete(code));
}

export interface ExpirySweep {
  removed: number;
}

/** Deletes every post whose time is up, oldest first, in batches (the periodic sweep). */
export async function sweepExpiredPosts(now: Date = new Date(), batch = 100): Promise<ExpirySweep> {
  let removed = 0;
  for (;;) {
    const due = await db().post.findMany({
      where: { expiresAt: { lte: now } },
      orderBy: { expiresAt: "asc" },
      take: batch,
      select: { code: true },
    });
    let removedNow = 0;
    for (const { code } of due) if (await expireIfDue(code, now.getTime())) removedNow++;
    removed += removedNow;
    // A batch that removed nothing (another process got there first) would be read again.
    if (due.length < batch || removedNow === 0) return { removed };
  }
}
