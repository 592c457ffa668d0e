/**
 * Deleting posts and files. Rows go first, in one transaction (a reader never sees a post
 * whose files are gone); then the stored bytes. A storage failure after the commit is
 * logged, never undone: the object is unreachable either way.
 */
import { db } from "../db/client";
import { DomainError } from "../errors";
import { syncGifWords } from "./gif-words";
import { renditionKeys } from "../renditions";
import { storage } from "../storage";
import { findPostByCode, notFound, postForChange, type PostRecord, type Viewer } from "./read";
import { postOnAdaptiveDelivery } from "./adaptive";
import { forgetDeliverable } from "./delivery-cache";
import { emitPostEvent } from "./events";

/** The file, its still frame and its renditions (made or not: deleting a missing key is a no-op). */
function storedKeys(files: PostRecord["files"]): string[] {
  return files.flatMap((f) => [f.storageKey, ...(f.thumbnailKey ? [f.thumbnailKey] : []), ...renditionKeys(f.storageKey)]);
}

async function removeObjects(keys: string[], prefixes: string[]): Promise<void> {
  const results = await Promise.allSettled([...keys.map((k) => storage().delete(k)), ...prefixes.map((p) => storage().deletePrefix(p))]);
  for (const r of results) if (r.status === "rejected") console.error("storage: delete failed", r.reason);
}

export async function deletePost(code: string, viewer: Viewer): Promise<void> {
  await removePost(await postForChange(code, viewer));
}

/**
 * The operator's delete (the console's moderation and report queues, docs/admin.md): any
 * post, also a moderated one, which its owner can no longer change.
 */
export async function deletePostAsOperator(code: string): Promise<void> {
  const post = await findPostByCode(code);
  if (!post) throw notFound();
  await removePost(post);
}

/** A delete asked for by someone: a post another request deleted meanwhile is a 404 (not a 500). */
async function removePost(post: PostRecord): Promise<void> {
  if (!(await removePostRecord(post))) throw notFound();
}

/**
 * Deletes the post's rows, then its stored files. Safe to call twice at once (an expiry
 * noticed by two reads, or by a read and the sweep): only the call that deleted the row
 * touches the counters and storage. False when the post was already gone.
 */
export async function removePostRecord(post: PostRecord): Promise<boolean> {
  const { code } = post;
  const deleted = await db().$transaction(async (tx) => {
    // deleteMany, not delete: when two calls delete the same post at once, the second
    // finds nothing, and the owner's count drops only once.
    const { count } = await tx.post.deleteMany({ where: { id: post.id } });
    if (count && post.userId) {
      await tx.user.updateMany({ where: { id: post.userId, uploadCount: { gt: 0 } }, data: { uploadCount: { decrement: 1 } } });
    }
    return count > 0;
  });
  forgetDeliverable({ code });
  if (!deleted) return false;
  emitPostEvent({ type: "deleted", post });
  await removeObjects(
    storedKeys(post.files),
    post.files.flatMap((f) => (f.streamKey ? [f.streamKey] : [])),
  );
  return true;
}

/** Removes one file; removing the last file of a post deletes the post. */
export async function deleteFile(code: string, name: string, viewer: Viewer): Promise<void> {
  const post = await postForChange(code, viewer);
  const file = post.files.find((f) => f.name.toLowerCase() === name.toLowerCase());
  if (!file) throw new DomainError("not_found", "No such file in this post.");
  if (post.files.length === 1) {
    await deletePost(code, viewer);
    return;
  }
  const rest = post.files.filter((f) => f.id !== file.id);
  await db().$transaction(async (tx) => {
    await tx.file.delete({ where: { id: file.id } });
    // Keep indexes contiguous: the array position is the file's index.
    for (const [index, f] of rest.entries()) {
      if (f.index !== index) await tx.file.update({ where: { id: f.id }, data: { index } });
    }
    await tx.post.update({
      where: { id: post.id },
      data: {
        fileCount: rest.length,
        firstFileGif: rest[0].mimeType === "image/gif",
        priority: postOnAdaptiveDelivery(rest),
      },
    });
    // The first file may have changed: the GIF search's copy of firstFileGif follows.
    await syncGifWords(tx, post.id);
  });
  forgetDeliverable({ code });
  await removeObjects(storedKeys([file]), file.streamKey ? [file.streamKey] : []);
}
