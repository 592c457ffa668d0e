/** GIF posts for the GET /gifs tests. */
import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/ids";
import { syncGifWords } from "@/lib/posts/gif-words";
import { newShareCode } from "@/lib/posts/codes";
import { normaliseWords } from "@/lib/posts/words";
import { createTestPost, type TestPostOptions } from "../support/fixtures";
import type { Reply } from "../support/http";

/**
 * A post through the shared fixture (a public GIF unless told otherwise). The fixture
 * writes rows directly, so the word rows' publicGif copy is brought in step here the way
 * PATCH /posts/{code} does it.
 */
export async function createGifPost(userId: string, options: TestPostOptions = {}): Promise<{ id: string; code: string }> {
  const post = await createTestPost(userId, { privacy: "public", mimeType: "image/gif", ...options });
  await db().$transaction((tx) => syncGifWords(tx, post.id));
  return post;
}

/**
 * Many public GIF posts at once (no stored bytes: listing never reads them), newest last
 * in `titles` order, one second apart from `start`.
 */
export async function bulkGifPosts(userId: string, titles: readonly string[], start: number): Promise<string[]> {
  const rows = titles.map((title, i) => ({ id: newId(), code: newShareCode(), title, createdAt: new Date(start + i * 1000) }));
  await db().post.createMany({
    data: rows.map((r) => ({ ...r, userId, privacy: "public", firstFileGif: true, fileCount: 1 })),
  });
  await db().file.createMany({
    data: rows.map((r) => ({
      id: newId(),
      postId: r.id,
      index: 0,
      name: "clip.gif",
      storageKey: `p/${r.id}/clip.gif`,
      size: 10n,
      mimeType: "image/gif",
      width: 10,
      height: 10,
    })),
  });
  await db().postWord.createMany({
    data: rows.flatMap((r) => normaliseWords(r.title).map((word) => ({ word, postId: r.id, postCreatedAt: r.createdAt, publicGif: true }))),
  });
  return rows.map((r) => r.code);
}

export const codesOf = (reply: Reply): string[] => (reply.body.posts as { code: string }[]).map((p) => p.code);
