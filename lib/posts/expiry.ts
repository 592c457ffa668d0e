/** Expiry and view limits (docs/expiry.md): an expired post is deleted when a read notices it, otherwise by the sweep. */
import { db } from "@/lib/db/client";
import { isExpired } from "./expiry-rules";
import { removePostRecord } from "./erase";
import { findPostByCode } from "./record";

/** Deletes the post behind `code` when expired, re-read from the database so a cached copy never deletes an extended post. */
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
