/** Counts stay exact under concurrent requests: likes, comment likes, comments, follows, blocks. */
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestPost, createTestUser, type TestUser } from "../support/fixtures";
import { counts, createUsers, del, expectOk, post, postCounts } from "./helpers";

useTestDatabase();
useCounterStore({ perTest: true });

let crowd: TestUser[];
let owner: TestUser;
beforeAll(async () => {
  owner = await createTestUser();
  crowd = await createUsers(20);
});

describe("concurrent requests", () => {
  it("20 parallel likes from different users: like_count 20, one grouped notification with 20 actors", async () => {
    const { code } = await createTestPost(owner.id);
    const replies = await Promise.all(crowd.map((u) => post(`/posts/${code}/like`, u)));
    replies.forEach(expectOk);
    expect(new Set(replies.map((r) => r.body.like_count))).toEqual(new Set(Array.from({ length: 20 }, (_, i) => i + 1)));
    expect((await postCounts(code)).likeCount).toBe(20);
    const entries = await db().notification.findMany({
      where: { userId: owner.id, kind: "like", post: { code } },
      include: { actors: true },
    });
    expect(entries).toHaveLength(1);
    expect(entries[0].count).toBe(20);
    expect(entries[0].actors).toHaveLength(20);

    const off = await Promise.all(crowd.map((u) => del(`/posts/${code}/like`, u)));
    off.forEach(expectOk);
    expect((await postCounts(code)).likeCount).toBe(0);
    expect(await db().notification.count({ where: { userId: owner.id, kind: "like", post: { code } } })).toBe(0);
  });

  it("the same user liking 10 times at once counts once; unliking 10 times at once uncounts once", async () => {
    const { code } = await createTestPost(owner.id);
    const [me] = crowd;
    const on = await Promise.all(Array.from({ length: 10 }, () => post(`/posts/${code}/like`, me)));
    on.forEach(expectOk);
    for (const r of on) expect(r.body.liked).toBe(true);
    expect((await postCounts(code)).likeCount).toBe(1);
    expect(await db().like.count({ where: { post: { code } } })).toBe(1);
    const off = await Promise.all(Array.from({ length: 10 }, () => del(`/posts/${code}/like`, me)));
    off.forEach(expectOk);
    expect((await postCounts(code)).likeCount).toBe(0);
  });

  it("comment likes and comments from 20 users at once", async () => {
    const { code } = await createTestPost(owner.id);
    const id = (await post(`/posts/${code}/comments`, owner, { body: "first" })).body.comment.id;
    const likes = await Promise.all(crowd.map((u) => post(`/comments/${id}/like`, u)));
    likes.forEach(expectOk);
    expect((await db().comment.findUniqueOrThrow({ where: { id } })).likeCount).toBe(20);
    const again = await Promise.all(crowd.slice(0, 5).map((u) => post(`/comments/${id}/like`, u)));
    again.forEach(expectOk);
    expect((await db().comment.findUniqueOrThrow({ where: { id } })).likeCount).toBe(20);

    const comments = await Promise.all(crowd.map((u, i) => post(`/posts/${code}/comments`, u, { body: `c${i}` })));
    comments.forEach(expectOk);
    expect((await postCounts(code)).commentCount).toBe(21);
    const entries = await db().notification.findMany({ where: { userId: owner.id, kind: "comment", post: { code } } });
    expect(entries.map((e) => e.count)).toEqual([20]);
  });

  it("20 parallel follows, then follows and blocks racing: counts match the rows", async () => {
    const star = await createTestUser();
    const replies = await Promise.all(crowd.map((u) => post(`/users/${star.id}/follow`, u)));
    replies.forEach(expectOk);
    expect((await counts(star.id)).followerCount).toBe(20);

    // Half of the crowd gets blocked while everyone unfollows and follows again.
    await Promise.all([
      ...crowd.slice(0, 10).map((u) => post(`/users/${u.id}/block`, star)),
      ...crowd.map((u) => del(`/users/${star.id}/follow`, u).then(() => post(`/users/${star.id}/follow`, u))),
    ]);
    const rows = await db().follow.count({ where: { followingId: star.id } });
    expect((await counts(star.id)).followerCount).toBe(rows);
    // Nobody blocked still follows.
    expect(await db().follow.count({ where: { followingId: star.id, followerId: { in: crowd.slice(0, 10).map((u) => u.id) } } })).toBe(0);
    expect(rows).toBe(10);
    for (const u of crowd) {
      const mine = await db().follow.count({ where: { followerId: u.id } });
      expect((await counts(u.id)).followingCount).toBe(mine);
    }
  });
});
