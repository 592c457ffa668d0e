/** Relay follows, blocks, and blocks cutting across every social feature. */
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestPost, createTestUser, type TestUser } from "../support/fixtures";
import { block, counts, createUsers, del, expectError, expectOk, get, ids, post } from "./helpers";

useTestDatabase();
useCounterStore({ perTest: true });

let alice: TestUser;
let bob: TestUser;
beforeAll(async () => {
  [alice, bob] = await createUsers(2);
});

describe("follows", () => {
  it("follow returns {following, follower_count}, is safe to repeat, and moves both counts", async () => {
    const star = await createTestUser();
    const first = await post(`/users/${star.id}/follow`, alice);
    expectOk(first);
    expect(first.body).toEqual({ following: true, follower_count: 1 });
    expect((await post(`/users/${star.id}/follow`, alice)).body).toEqual({ following: true, follower_count: 1 });
    // By username too.
    expect((await post(`/users/${star.username}/follow`, bob)).body).toEqual({ following: true, follower_count: 2 });
    expect(await counts(star.id)).toEqual({ followerCount: 2, followingCount: 0 });
    expect((await counts(alice.id)).followingCount).toBeGreaterThanOrEqual(1);

    const profile = await get(`/users/${star.id}`, alice);
    expect(profile.body).toMatchObject({ following: true, follower_count: 2 });

    expect((await del(`/users/${star.id}/follow`, alice)).body).toEqual({ following: false, follower_count: 1 });
    expect((await del(`/users/${star.id}/follow`, alice)).body).toEqual({ following: false, follower_count: 1 });
    expect(await counts(star.id)).toEqual({ followerCount: 1, followingCount: 0 });
  });

  it("yourself is 403 forbidden, unknown users 404, suspended users 403 suspended", async () => {
    expectError(await post(`/users/@me/follow`, alice), 403, "forbidden");
    expectError(await post(`/users/${alice.id}/follow`, alice), 403, "forbidden");
    expectError(await post(`/users/nobody-here/follow`, alice), 404, "not_found");
    const gone = await createTestUser({ suspended: true });
    expectError(await post(`/users/${gone.id}/follow`, alice), 403, "suspended");
    // Unfollowing a suspended user is allowed.
    expect((await del(`/users/${gone.id}/follow`, alice)).body).toEqual({ following: false, follower_count: 0 });
  });

  it("remove follower: {id, deleted: true}, safe to repeat, counts adjusted", async () => {
    const me = await createTestUser();
    const fan = await createTestUser();
    await post(`/users/${me.id}/follow`, fan);
    const removed = await del(`/users/@me/followers/${fan.id}`, me);
    expectOk(removed);
    expect(removed.body).toEqual({ id: fan.id, deleted: true });
    expect(await counts(me.id)).toEqual({ followerCount: 0, followingCount: 0 });
    expect(await counts(fan.id)).toEqual({ followerCount: 0, followingCount: 0 });
    expectOk(await del(`/users/@me/followers/${fan.id}`, me));
    expectError(await del(`/users/@me/followers/nobody-here`, me), 404, "not_found");
  });

  it("followers and following: paged under users, newest first, suspended users skipped", async () => {
    const star = await createTestUser();
    const fans = await createUsers(5);
    for (const fan of fans) {
      expectOk(await post(`/users/${star.id}/follow`, fan));
      await new Promise((r) => setTimeout(r, 3));
    }
    await db().user.update({ where: { id: fans[1].id }, data: { suspended: true } });
    const expected = fans
      .filter((_, i) => i !== 1)
      .reverse()
      .map((f) => f.id);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const reply = await get(`/users/${star.id}/followers?limit=2${cursor ? `&cursor=${cursor}` : ""}`, alice);
      expectOk(reply);
      expect(reply.body.users.length).toBeLessThanOrEqual(2);
      expect(reply.body.users[0]).toHaveProperty("username");
      seen.push(...ids(reply.body.users));
      cursor = reply.body.next_cursor;
      expect(reply.body.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual(expected);

    const following = await get(`/users/${fans[0].id}/following`, alice);
    expect(ids(following.body.users)).toEqual([star.id]);
    const mine = await get(`/users/@me/following`, fans[0]);
    expect(ids(mine.body.users)).toEqual([star.id]);

    // A cursor belongs to its endpoint and its user.
    const page = await get(`/users/${star.id}/followers?limit=1`, alice);
    expectError(await get(`/users/${star.id}/following?cursor=${page.body.next_cursor}`, alice), 400, "invalid_request");
    expectError(await get(`/users/${fans[0].id}/followers?cursor=${page.body.next_cursor}`, alice), 400, "invalid_request");
    expectError(await get(`/users/${star.id}/followers?limit=0`, alice), 400, "invalid_request");
  });

  it("lists of unknown users are 404, of suspended users 403 suspended", async () => {
    expectError(await get(`/users/nobody-here/followers`, alice), 404, "not_found");
    const gone = await createTestUser({ suspended: true });
    expectError(await get(`/users/${gone.id}/following`, alice), 403, "suspended");
  });
});

describe("blocks", () => {
  it("block and unblock return {blocking}, are safe to repeat, and show on the profile", async () => {
    const target = await createTestUser();
    const on = await post(`/users/${target.id}/block`, alice);
    expectOk(on);
    expect(on.body).toEqual({ blocking: true });
    expect((await post(`/users/${target.id}/block`, alice)).body).toEqual({ blocking: true });
    expect((await get(`/users/${target.id}`, alice)).body.blocking).toBe(true);
    expect((await del(`/users/${target.id}/block`, alice)).body).toEqual({ blocking: false });
    expect((await del(`/users/${target.id}/block`, alice)).body).toEqual({ blocking: false });
    expect((await get(`/users/${target.id}`, alice)).body.blocking).toBe(false);
    expectError(await post(`/users/@me/block`, alice), 403, "forbidden");
    expectError(await post(`/users/nobody-here/block`, alice), 404, "not_found");
  });

  it("GET /users/@me/blocks: {user, created_at} newest first, paged; someone else's list is 403", async () => {
    const me = await createTestUser();
    const targets = await createUsers(3);
    for (const t of targets) {
      await block(me, t);
      await new Promise((r) => setTimeout(r, 3));
    }
    // A suspended user stays on the list, so they can be unblocked.
    await db().user.update({ where: { id: targets[0].id }, data: { suspended: true } });
    const first = await get(`/users/@me/blocks?limit=2`, me);
    expectOk(first);
    expect(first.body.blocks.map((b: { user: { id: string } }) => b.user.id)).toEqual([targets[2].id, targets[1].id]);
    expect(first.body.blocks[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(first.body.has_more).toBe(true);
    const second = await get(`/users/@me/blocks?limit=2&cursor=${first.body.next_cursor}`, me);
    expect(second.body.blocks.map((b: { user: { id: string } }) => b.user.id)).toEqual([targets[0].id]);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    // Own id and own username work too; anyone else's list is refused.
    expect((await get(`/users/${me.id}/blocks`, me)).body.blocks).toHaveLength(3);
    expect((await get(`/users/${me.username}/blocks`, me)).body.blocks).toHaveLength(3);
    expectError(await get(`/users/${me.id}/blocks`, alice), 403, "forbidden");
    expectError(await get(`/users/nobody-here/blocks`, alice), 403, "forbidden");
  });
});

describe("a block cuts across every feature", () => {
  let blocker: TestUser;
  let blocked: TestUser;
  let bystander: TestUser;
  let blockerPost: { id: string; code: string };
  let blockedPost: { id: string; code: string };
  let bystanderPost: { id: string; code: string };
  let blockedComment: string;
  let blockerComment: string;

  beforeAll(async () => {
    [blocker, blocked, bystander] = await createUsers(3);
    blockerPost = await createTestPost(blocker.id);
    blockedPost = await createTestPost(blocked.id);
    bystanderPost = await createTestPost(bystander.id);
    // Before the block: follows both ways, and comments of each on a bystander's post.
    expectOk(await post(`/users/${blocker.id}/follow`, blocked));
    expectOk(await post(`/users/${blocked.id}/follow`, blocker));
    expectOk(await post(`/users/${bystander.id}/follow`, blocked));
    expectOk(await post(`/users/${blocked.id}/follow`, bystander));
    blockedComment = (await post(`/posts/${bystanderPost.code}/comments`, blocked, { body: "from blocked" })).body.comment.id;
    blockerComment = (await post(`/posts/${bystanderPost.code}/comments`, blocker, { body: "from blocker" })).body.comment.id;
    expectOk(await post(`/posts/${blockerPost.code}/like`, blocked));
    await block(blocker, blocked);
  });

  it("ends follows both ways, with exact counts", async () => {
    expect(
      await db().follow.count({
        where: {
          OR: [
            { followerId: blocker.id, followingId: blocked.id },
            { followerId: blocked.id, followingId: blocker.id },
          ],
        },
      }),
    ).toBe(0);
    expect(await counts(blocker.id)).toEqual({ followerCount: 0, followingCount: 0 });
    expect(await counts(blocked.id)).toEqual({ followerCount: 1, followingCount: 1 });
    // Unblocking does not bring them back.
    expect((await get(`/users/${blocked.id}`, blocker)).body).toMatchObject({ following: false, blocking: true });
  });

  it("refuses follows both ways with 403 blocked", async () => {
    expectError(await post(`/users/${blocker.id}/follow`, blocked), 403, "blocked");
    expectError(await post(`/users/${blocked.id}/follow`, blocker), 403, "blocked");
  });

  it("refuses likes, comments and comment likes both ways with 403 blocked", async () => {
    expectError(await post(`/posts/${blockerPost.code}/like`, blocked), 403, "blocked");
    expectError(await post(`/posts/${blockedPost.code}/like`, blocker), 403, "blocked");
    expectError(await post(`/posts/${blockerPost.code}/comments`, blocked, { body: "hi" }), 403, "blocked");
    expectError(await post(`/posts/${blockedPost.code}/comments`, blocker, { body: "hi" }), 403, "blocked");
    expectError(await post(`/comments/${blockerComment}/like`, blocked), 403, "blocked");
    expectError(await post(`/comments/${blockedComment}/like`, blocker), 403, "blocked");
    // Comments under the blocker's post, by someone else: the blocked user cannot like them either.
    const onBlockerPost = (await post(`/posts/${blockerPost.code}/comments`, bystander, { body: "third party" })).body.comment.id;
    expectError(await post(`/comments/${onBlockerPost}/like`, blocked), 403, "blocked");
    // Taking back a like made before the block is allowed.
    expect((await del(`/posts/${blockerPost.code}/like`, blocked)).body).toEqual({ liked: false, like_count: 0 });
  });

  it("hides each side's comments from the other; third parties see both", async () => {
    const bodies = async (who: TestUser) =>
      (await get(`/posts/${bystanderPost.code}/comments`, who)).body.comments.map((c: { body: string }) => c.body);
    expect(await bodies(blocker)).toEqual(["from blocker"]);
    expect(await bodies(blocked)).toEqual(["from blocked"]);
    expect(await bodies(bystander)).toEqual(["from blocker", "from blocked"]);
    // A hidden comment cannot be deleted by the other side either: 404, not 403.
    expectError(await del(`/comments/${blockedComment}`, blocker), 404, "not_found");
  });

  it("hides each side from the other in follower lists, and refuses their lists with 403 blocked", async () => {
    const followersOfBystander = async (who: TestUser) => ids((await get(`/users/${bystander.id}/following`, who)).body.users);
    expect(await followersOfBystander(bystander)).toEqual([blocked.id]);
    expect(await followersOfBystander(blocker)).toEqual([]);
    expectError(await get(`/users/${blocked.id}/followers`, blocker), 403, "blocked");
    expectError(await get(`/users/${blocker.id}/following`, blocked), 403, "blocked");
  });

  it("hides each side from the other in discover", async () => {
    const codes = async (who: TestUser) => (await get(`/discover`, who)).body.posts.map((p: { code: string }) => p.code);
    const seenByBlocker = await codes(blocker);
    const seenByBlocked = await codes(blocked);
    expect(seenByBlocker).not.toContain(blockedPost.code);
    expect(seenByBlocked).not.toContain(blockerPost.code);
    expect(seenByBlocker).toContain(bystanderPost.code);
    expect(await codes(bystander)).toEqual(expect.arrayContaining([blockerPost.code, blockedPost.code]));
  });

  it("unblocking lets them follow again", async () => {
    const [a, b] = await createUsers(2);
    await block(a, b);
    expectError(await post(`/users/${a.id}/follow`, b), 403, "blocked");
    expectOk(await del(`/users/${b.id}/block`, a));
    expect((await post(`/users/${a.id}/follow`, b)).body).toEqual({ following: true, follower_count: 1 });
  });
});
