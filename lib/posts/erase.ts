/**
 * Removing a post's rows and stored objects, for a delete someone asked for (remove.ts) and
 * for expiry (expiry.ts) alike. Rows go first, in one transaction (a reader never sees a
 * post whose files are gone); then the stored bytes. A storage failure after the commit is
 * logged, never undone: the object is unreachable either way. Account deletion takes the
 * other order (erasePostFilesFirst).
 */
import { db } from "@/lib/db/client";
import { renditionKeys } from "@/lib/renditions";
import { storage } from "@/lib/storage";
import { forgetDeliverable } from "./delivery-cache";
import { emitPostEvent } from "./events";
import type { PostRecord } from "./record";

/** The file, its still frame and its renditions (made or not: deleting a missing key is a no-op). */
export function storedKeys(files: PostRecord["files"]): string[] {
  return files.flatMap((f) => [f.storageKey, ...(f.thumbnailKey ? [f.thumbnailKey] : []), ...renditionKeys(f.storageKey)]);
}

export async function removeObjects(keys: string[], prefixes: string[]): Promise<void> {
  const results = await Promise.allSettled([...keys.map((k) => storage().delete(k)), ...prefixes.map((p) => storage().deletePrefix(p))]);
  for (const r of results) if (r.status === "rejected") console.error("storage: delete failed", r.reason);
}

const streamPrefixes = (files: PostRecord["files"]): string[] => files.flatMap((f) => (f.streamKey ? [f.streamKey] : []));

/**
 * Deletes the post's rows in one transaction: the owner's count moves only for the call that
 * deleted the row. True when this call deleted it.
 */
async function removePostRows(post: PostRecord): Promise<boolean> {
  const deleted = await db().$transaction(async (tx) => {
    // deleteMany, not delete: when two calls delete the same post at once, the second
    // finds nothing, and the owner's count drops only once.
    const { count } = await tx.post.deleteMany({ where: { id: post.id } });
    if (count && post.userId) {
      await tx.user.updateMany({ where: { id: post.userId, uploadCount: { gt: 0 } }, data: { uploadCount: { decrement: 1 } } });
    }
    return count > 0;
  });
  forgetDeliverable({ code: post.code });
  if (deleted) emitPostEvent({ type: "deleted", post });
  return deleted;
}

/**
 * Deletes the post's rows, then its stored files. Safe to call twice at once (an expiry
 * noticed by two reads, or by a read and the sweep): only the call that deleted the row
 * touches the counters and storage. False when the post was already gone.
 */
export async function removePostRecord(post: PostRecord): Promise<boolean> {
  if (!(await removePostRows(post))) return false;
  await removeObjects(storedKeys(post.files), streamPrefixes(post.files));
  return true;
}

/**
 * The other order, for account deletion (docs/account-deletion.md), whose journal is the
 * user row marked as deleting: the stored files first, then the rows. A storage failure
 * throws and leaves the rows for the next attempt; a crash in between leaves rows whose
 * files are gone, which the recovery sweep erases again (deleting a missing object is a
 * no-op). Either way no object outlives the last row that names it.
 */
export async function erasePostFilesFirst(post: PostRecord): Promise<void> {
  await Promise.all([
    ...storedKeys(post.files).map((k) => storage().delete(k)),
    ...streamPrefixes(post.files).map((p) => storage().deletePrefix(p)),
  ]);
  await removePostRows(post);
}
