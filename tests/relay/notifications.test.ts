/** Relay notifications: kinds, grouping, preferences, blocks, unread count, mark read. */
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { GROUP_WINDOW_MS } from "@/lib/social/notifications";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestPost, createTestUser, type TestUser } from "../support/fixtures";
import { block, createUsers, del, expectError, expectOk, get, ids, post } from "./helpers";

useTestDatabase();
useCounterStore({ perTest: true });

interface NotificationJson {
  id: string;
  kind: string;
  actors: { id: string; username: string }[];
  actor_count: number;
  read: boolean;
  post_code: string | null;
  post_thumbnail_url: string | null;
  created_at: string;
}

const notifications = async (who: TestUser, query = ""): Promise<NotificationJson[]> => {
  const reply = await get(`/notifications${query}`, who);
  expectOk(reply);
  return reply.body.notifications;
};
const unread = async (who: TestUser): Promise<number> => (await get(`/notifications/unread-count`, who)).body.unread_count;

let fans: TestUser[];
beforeAll(async () => {
  fans = await createUsers(4);
});

describe("kinds and grouping", () => {
  it("likes of one post merge into one unread entry with several actors, newest first", async () => {
    const owner = await createTestUser();
    const { code } = await createTestPost(owner.id);
    for (const fan of fans.slice(0, 3)) expectOk(await post(`/posts/${code}/like`, fan));
    const list = await notifications(owner);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ kind: "like", actor_count: 3, read: false, post_code: code });
    expect(ids(list[0].actors)).toEqual([fans[2].id, fans[1].id, fans[0].id]);
    expect(list[0].actors[0]).toMatchObject({ username: fans[2].username, verified: false, plan: "free" });
    // An image's thumbnail is its grid-sized rendition (docs/renditions.md).
    expect(list[0].post_thumbnail_url).toMatch(/^https?:\/\/.+\/r\/\d+\/file0\.png\.webp$/);
    expect(await unread(owner)).toBe(1);
  });

  it("a like on another post is another entry; after reading, the next like opens a new entry", async () => {
    const owner = await createTestUser();
    const a = await createTestPost(owner.id);
    const b = await createTestPost(owner.id);
    await post(`/posts/${a.code}/like`, fans[0]);
    await post(`/posts/${b.code}/like`, fans[0]);
    expect((await notifications(owner)).map((n) => n.post_code)).toEqual([b.code, a.code]);
    const read = await post(`/notifications/read`, owner, {});
    expect(read.body).toEqual({ unread_count: 0 });
    await post(`/posts/${a.code}/like`, fans[1]);
    const list = await notifications(owner);
    expect(list.map((n) => [n.post_code, n.actor_count, n.read])).toEqual([
      [a.code, 1, false],
      [b.code, 1, true],
      [a.code, 1, true],
    ]);
  });

  it("an unread entry only takes events for a while after it opened", async () => {
    const owner = await createTestUser();
    const { code } = await createTestPost(owner.id);
    await post(`/posts/${code}/like`, fans[0]);
    await db().notification.updateMany({ where: { userId: owner.id }, data: { createdAt: new Date(Date.now() - GROUP_WINDOW_MS - 1000) } });
    await post(`/posts/${code}/like`, fans[1]);
    expect((await notifications(owner)).map((n) => n.actor_count)).toEqual([1, 1]);
  });

  it("unlike takes the like back out of the unread entry", async () => {
    const owner = await createTestUser();
    const { code } = await createTestPost(owner.id);
    await post(`/posts/${code}/like`, fans[0]);
    await post(`/posts/${code}/like`, fans[1]);
    await del(`/posts/${code}/like`, fans[0]);
    const [entry] = await notifications(owner);
    expect(entry).toMatchObject({ actor_count: 1 });
    expect(ids(entry.actors)).toEqual([fans[1].id]);
    await del(`/posts/${code}/like`, fans[1]);
    expect(await notifications(owner)).toEqual([]);
    expect(await unread(owner)).toBe(0);
  });

  it("comments, comment likes, follows and @mentions", async () => {
    const owner = await createTestUser();
    const mentioned = await createTestUser();
    const { code } = await createTestPost(owner.id);
    const comment = (
      await post(`/posts/${code}/comments`, fans[0], { body: `look @${mentioned.username.toUpperCase()}, and @${owner.username}.` })
    ).body.comment;
    await post(`/posts/${code}/comments`, fans[1], { body: "me too" });
    await post(`/comments/${comment.id}/like`, fans[2]);
    await post(`/users/${owner.id}/follow`, fans[0]);
    await post(`/users/${owner.id}/follow`, fans[1]);

    const ownerList = await notifications(owner);
    expect(ownerList.map((n) => [n.kind, n.actor_count])).toEqual([
      ["follow", 2],
      ["comment", 2],
    ]);
    expect(ownerList[0].post_code).toBeNull();
    expect(ownerList[0].post_thumbnail_url).toBeNull();
    expect(ids(ownerList[1].actors)).toEqual([fans[1].id, fans[0].id]);

    const mentionList = await notifications(mentioned);
    expect(mentionList).toHaveLength(1);
    expect(mentionList[0]).toMatchObject({ kind: "mention", actor_count: 1, post_code: code });
    expect(ids(mentionList[0].actors)).toEqual([fans[0].id]);

    const fanList = await notifications(fans[0]);
    expect(fanList).toHaveLength(1);
    expect(fanList[0]).toMatchObject({ kind: "comment_like", actor_count: 1, post_code: code });
  });

  it("mentions of users who cannot open the post, of unknown names and of oneself notify nobody", async () => {
    const owner = await createTestUser();
    const outsider = await createTestUser();
    const { code } = await createTestPost(owner.id, { privacy: "private" });
    await post(`/posts/${code}/comments`, owner, { body: `@${outsider.username} @${owner.username} @nobody_here` });
    expect(await notifications(outsider)).toEqual([]);
    expect(await notifications(owner)).toEqual([]);
  });

  it("your own actions never notify you", async () => {
    const owner = await createTestUser();
    const { code } = await createTestPost(owner.id);
    await post(`/posts/${code}/like`, owner);
    const id = (await post(`/posts/${code}/comments`, owner, { body: "mine" })).body.comment.id;
    await post(`/comments/${id}/like`, owner);
    expect(await notifications(owner)).toEqual([]);
  });

  it("private posts: the thumbnail is a signed URL", async () => {
    const owner = await createTestUser();
    const friend = await createTestUser();
    const { id, code } = await createTestPost(owner.id, { privacy: "private" });
    await db().postAccess.create({ data: { postId: id, userId: friend.id } });
    expectOk(await post(`/posts/${code}/like`, friend));
    const [entry] = await notifications(owner);
    expect(entry.post_thumbnail_url).toMatch(/[?&]sig=/);
  });

  it("video posts without a thumbnail have none; with one, it is used", async () => {
    const owner = await createTestUser();
    const video = await createTestPost(owner.id, { mimeType: "video/mp4" });
    await post(`/posts/${video.code}/like`, fans[0]);
    expect((await notifications(owner))[0].post_thumbnail_url).toBeNull();
    await db().file.updateMany({ where: { postId: video.id }, data: { thumbnailKey: `thumbs/${video.id}.jpg` } });
    expect((await notifications(owner))[0].post_thumbnail_url).toMatch(/\/thumbs\/file0\.mp4\.jpg$/);
  });
});

describe("preferences", () => {
  it("switched-off kinds are not recorded; mentions follow the comments switch", async () => {
    const owner = await createTestUser();
    const { code } = await createTestPost(owner.id);
    await db().notificationPreference.create({
      data: { userId: owner.id, likes: false, follows: false, comments: true, commentLikes: true },
    });
    await post(`/posts/${code}/like`, fans[0]);
    await post(`/users/${owner.id}/follow`, fans[0]);
    expect(await notifications(owner)).toEqual([]);
    await post(`/posts/${code}/comments`, fans[0], { body: "hello" });
    expect((await notifications(owner)).map((n) => n.kind)).toEqual(["comment"]);

    const quiet = await createTestUser();
    await db().notificationPreference.create({ data: { userId: quiet.id, comments: false, commentLikes: false } });
    const id = (await post(`/posts/${code}/comments`, quiet, { body: "q" })).body.comment.id;
    await post(`/comments/${id}/like`, fans[1]);
    await post(`/posts/${code}/comments`, fans[1], { body: `hey @${quiet.username}` });
    expect(await notifications(quiet)).toEqual([]);
  });
});

describe("blocks", () => {
  it("a block removes each side from the other's notifications, and blocked users never notify", async () => {
    const owner = await createTestUser();
    const [pest, friend] = await createUsers(2);
    const { code } = await createTestPost(owner.id);
    await post(`/posts/${code}/like`, pest);
    await post(`/posts/${code}/like`, friend);
    await post(`/users/${owner.id}/follow`, pest);
    await block(owner, pest);
    const list = await notifications(owner);
    expect(list.map((n) => [n.kind, n.actor_count])).toEqual([["like", 1]]);
    expect(ids(list[0].actors)).toEqual([friend.id]);
    // A mention from the blocked side does not arrive either.
    const shared = await createTestPost(friend.id);
    await post(`/posts/${shared.code}/comments`, pest, { body: `@${owner.username} look` });
    expect((await notifications(owner)).map((n) => n.kind)).toEqual(["like"]);
  });

  it("entries whose actors are all suspended are not shown or counted", async () => {
    const owner = await createTestUser();
    const gone = await createTestUser();
    const { code } = await createTestPost(owner.id);
    await post(`/posts/${code}/like`, gone);
    await db().user.update({ where: { id: gone.id }, data: { suspended: true } });
    expect(await notifications(owner)).toEqual([]);
    expect(await unread(owner)).toBe(0);
  });
});

describe("reading", () => {
  it("pages newest first with a cursor; mark read with ids returns what is still unread", async () => {
    const owner = await createTestUser();
    const posts = [];
    for (let i = 0; i < 5; i++) {
      const p = await createTestPost(owner.id);
      posts.push(p);
      await post(`/posts/${p.code}/like`, fans[0]);
      await new Promise((r) => setTimeout(r, 3));
    }
    const first = await get(`/notifications?limit=2`, owner);
    expect(first.body.notifications.map((n: NotificationJson) => n.post_code)).toEqual([posts[4].code, posts[3].code]);
    expect(first.body.has_more).toBe(true);
    const rest = await get(`/notifications?limit=10&cursor=${first.body.next_cursor}`, owner);
    expect(rest.body.notifications.map((n: NotificationJson) => n.post_code)).toEqual([posts[2].code, posts[1].code, posts[0].code]);
    expect(rest.body).toMatchObject({ has_more: false, next_cursor: null });
    expectError(await get(`/notifications?cursor=garbage!`, owner), 400, "invalid_request");

    expect(await unread(owner)).toBe(5);
    const picked = first.body.notifications.map((n: NotificationJson) => n.id);
    // Someone else's ids are ignored.
    const stranger = await createTestUser();
    expect((await post(`/notifications/read`, stranger, { ids: picked })).body).toEqual({ unread_count: 0 });
    expect((await post(`/notifications/read`, owner, { ids: picked })).body).toEqual({ unread_count: 3 });
    expect((await notifications(owner)).map((n) => n.read)).toEqual([true, true, false, false, false]);
    expect((await post(`/notifications/read`, owner)).body).toEqual({ unread_count: 0 });
    expect(await unread(owner)).toBe(0);
    expectError(await post(`/notifications/read`, owner, { ids: "all" }), 400, "invalid_request");
  });
});
