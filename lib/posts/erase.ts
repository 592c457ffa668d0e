/**
 * Removing a post's rows and stored objects, for deletes and expiry alike. Rows first, in one
 * transaction, so a reader never sees a post whose files are gone; a storage failure after the
 * commit is logged, never undone.
 */
import { db } from "@/lib/db/client";
import { renditionKeys } from "@/lib/renditions";
import { storage } from "@/lib/storage";
import { forgetDeliverable } from "./delivery-cache";
import { emitPostEvent } from "./events";
import type { PostRecord } from "./record";

export function storedKeys(files: PostRecord["files"]): string[] {
  return files.flatMap((f) => [f.storageKey, ...(f.thumbnailKey ? [f.thumbnailKey] : []), ...renditionKeys(f.storageKey)]);
}

export async function removeObjects(keys: string[], prefixes: string[]): Promise<void> {
  const results = await Promise.allSettled([...keys.map((k) => storage().delete(k)), ...prefixes.map((p) => storage().deletePrefix(p))]);
  for (const r of results) if (r.status === "rejected") console.error("storage: delete failed", r.reason);
}

const streamPrefixes = (files: PostRecord["files"]): string[] => files.flatMap((f) => (f.streamKey ? [f.streamKey] : []));

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

/** Rows, then stored files. Safe to call twice at once: only the call that deleted the row touches counters and storage. */
export async function removePostRecord(post: PostRecord): Promise<boolean> {
  if (!(await removePostRows(post))) return false;
  await removeObjects(storedKeys(post.files), streamPrefixes(post.files));
  return true;
}

/**
 * The other order, for account deletion (docs/account-deletion.md): files first, then rows; a
 * crash in between leaves rows the recovery sweep erases again. No object outlives its last row.
 */
export async function erasePostFilesFirst(post: PostRecord): Promise<void> {
  await Promise.all([
    ...storedKeys(post.files).map((k) => storage().delete(k)),
    ...streamPrefixes(post.files).map((p) => storage().deletePrefix(p)),
  ]);
  await removePostRows(post);
}
