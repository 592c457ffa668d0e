/** Deleting posts and files on someone's request; the removal itself is erase.ts's. */
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { syncGifWords } from "./gif-words";
import { findPostByCode, notFound, postForChange, type PostRecord, type Viewer } from "./read";
import { postOnAdaptiveDelivery } from "./adaptive";
import { sortNameOf, totalSizeOf } from "./sort-keys";
import { forgetDeliverable } from "./delivery-cache";
import { removeObjects, removePostRecord, storedKeys } from "./erase";

export async function deletePost(code: string, viewer: Viewer): Promise<void> {
  await removePost(await postForChange(code, viewer));
}

/** The operator's delete (docs/admin.md): any post, also a moderated one. */
export async function deletePostAsOperator(code: string): Promise<void> {
  const post = await findPostByCode(code);
  if (!post) throw notFound();
  await removePost(post);
}

/** A delete asked for by someone: a post another request deleted meanwhile is a 404 (not a 500). */
async function removePost(post: PostRecord): Promise<void> {
  if (!(await removePostRecord(post))) throw notFound();
}

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
        // The gallery's sort keys (docs/gallery-sort.md): the first file may have changed.
        totalSize: totalSizeOf(rest),
        sortName: sortNameOf(post.title, rest[0].name),
      },
    });
    // The first file may have changed: the GIF search's copy of firstFileGif follows.
    await syncGifWords(tx, post.id);
  });
  forgetDeliverable({ code });
  await removeObjects(storedKeys([file]), file.streamKey ? [file.streamKey] : []);
}
