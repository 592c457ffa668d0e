/**
 * "Did this viewer like the post" is answered from the post's likers, loaded once per post
 * (lib/posts/read.ts): a busy post's readers share one entry instead of one each, which
 * readers beyond the cache's size evicted in turn. Past LIKERS_MAX likers it is asked per
 * viewer, as before.
 */
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/ids";
import { likedBy, peekLikedBy } from "@/lib/posts/read";
import { createTestPost, createTestUser } from "../support/fixtures";
import { settledVersion, useTestDatabase } from "../support/db";

useTestDatabase();

async function usersWhoLike(postId: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => newId());
  for (let i = 0; i < ids.length; i += 500) {
    const batch = ids.slice(i, i + 500);
    await db().user.createMany({
      data: batch.map((id) => ({ id, username: `l${id}`.toLowerCase(), displayUsername: `l${id}`, plan: "free" })),
    });
    await db().like.createMany({ data: batch.map((userId) => ({ postId, userId })) });
  }
  return ids;
}

describe("likers per post", () => {
  it("one viewer's look-up answers every other viewer of the post without a query", async () => {
    const owner = await createTestUser();
    const [fan, passerby, stranger] = [await createTestUser(), await createTestUser(), await createTestUser()];
    const post = await createTestPost(owner.id, { privacy: "public" });
    await db().like.create({ data: { postId: post.id, userId: fan.id } });
    await settledVersion();

    expect(peekLikedBy(post.id, fan.id)).toBeUndefined();
    expect(await likedBy(post.id, passerby.id)).toBe(false);
    // Loaded for the passer-by; known for everyone now.
    expect(peekLikedBy(post.id, fan.id)).toBe(true);
    expect(peekLikedBy(post.id, stranger.id)).toBe(false);
    expect(peekLikedBy(post.id, null)).toBe(false);
  });

  it("a like or an unlike shows on the next read", async () => {
    const owner = await createTestUser();
    const reader = await createTestUser();
    const post = await createTestPost(owner.id, { privacy: "public" });
    expect(await likedBy(post.id, reader.id)).toBe(false);
    await db().like.create({ data: { postId: post.id, userId: reader.id } });
    expect(await likedBy(post.id, reader.id)).toBe(true);
    await db().like.delete({ where: { postId_userId: { postId: post.id, userId: reader.id } } });
    expect(await likedBy(post.id, reader.id)).toBe(false);
  });

  it("past 2 000 likers each viewer is asked on their own, with the same answers", async () => {
    const owner = await createTestUser();
    const post = await createTestPost(owner.id, { privacy: "public" });
    const fans = await usersWhoLike(post.id, 2_001);
    const passerby = await createTestUser();
    await settledVersion();

    expect(await likedBy(post.id, fans[1_234])).toBe(true);
    expect(await likedBy(post.id, passerby.id)).toBe(false);
    // Not one set for the post: a viewer not asked yet is not known.
    expect(peekLikedBy(post.id, fans[7])).toBeUndefined();
    expect(peekLikedBy(post.id, fans[1_234])).toBe(true);
  }, 60_000);
});
