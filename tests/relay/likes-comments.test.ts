/** Relay likes, comments and comment likes. */
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestPost, createTestTeam, createTestUser, type TestUser } from "../support/fixtures";
import { api } from "../support/http";
import { createUsers, del, expectError, expectOk, get, post, postCounts } from "./helpers";

useTestDatabase();
useCounterStore({ perTest: true });

let owner: TestUser;
let alice: TestUser;
let bob: TestUser;
beforeAll(async () => {
  [owner, alice, bob] = await createUsers(3);
});

describe("post likes", () => {
  it("POST turns on, DELETE turns off, both safe to repeat; the post shows liked and like_count", async () => {
    const { code } = await createTestPost(owner.id);
    const on = await post(`/posts/${code}/like`, alice);
    expectOk(on);
    expect(on.body).toEqual({ liked: true, like_count: 1 });
    expect((await post(`/posts/${code}/like`, alice)).body).toEqual({ liked: true, like_count: 1 });
    expect((await post(`/posts/${code}/like`, bob)).body).toEqual({ liked: true, like_count: 2 });

    const seen = await get(`/posts/${code}`, alice);
    expect(seen.body.post).toMatchObject({ liked: true, like_count: 2 });
    expect((await get(`/posts/${code}`, owner)).body.post.liked).toBe(false);

    expect((await del(`/posts/${code}/like`, alice)).body).toEqual({ liked: false, like_count: 1 });
    expect((await del(`/posts/${code}/like`, alice)).body).toEqual({ liked: false, like_count: 1 });
    expect((await postCounts(code)).likeCount).toBe(1);
    expect(await db().like.count({ where: { post: { code } } })).toBe(1);
  });

  it("owners may like their own posts; unlisted posts and private posts with access can be liked", async () => {
    const own = await createTestPost(owner.id);
    expect((await post(`/posts/${own.code}/like`, owner)).body).toEqual({ liked: true, like_count: 1 });
    const unlisted = await createTestPost(owner.id, { privacy: "unlisted" });
    expectOk(await post(`/posts/${unlisted.code}/like`, alice));
    const shared = await createTestPost(owner.id, { privacy: "private" });
    await db().postAccess.create({ data: { postId: shared.id, userId: alice.id } });
    expectOk(await post(`/posts/${shared.code}/like`, alice));
    expectError(await post(`/posts/${shared.code}/like`, bob), 404, "not_found");
  });

  it("hidden posts are 404, moderated ones 403 moderated, unknown codes 404", async () => {
    const hidden = await createTestPost(owner.id, { privacy: "private" });
    expectError(await post(`/posts/${hidden.code}/like`, alice), 404, "not_found");
    expectError(await del(`/posts/${hidden.code}/like`, alice), 404, "not_found");
    const moderated = await createTestPost(owner.id, { moderated: true });
    expectError(await post(`/posts/${moderated.code}/like`, alice), 403, "moderated");
    expectError(await post(`/posts/NOPE123/like`, alice), 404, "not_found");
  });

  it("team posts: like_count and liked are null, and liking one is 403 forbidden", async () => {
    const teamOwner = await createTestUser({ plan: "ultra" });
    const team = await createTestTeam(teamOwner.id);
    const { code } = await createTestPost(teamOwner.id, { teamId: team.id });
    const seen = await get(`/posts/${code}`, teamOwner);
    expect(seen.body.post).toMatchObject({ like_count: null, liked: null });
    expectError(await post(`/posts/${code}/like`, teamOwner), 403, "forbidden");
    expectError(await post(`/posts/${code}/comments`, teamOwner, { body: "hi" }), 403, "forbidden");
    // Others do not see the post at all.
    expectError(await post(`/posts/${code}/like`, alice), 404, "not_found");
  });

  it("a suspended author's posts cannot be liked (403 suspended); an existing like can still be removed", async () => {
    const author = await createTestUser();
    const { code } = await createTestPost(author.id);
    expectOk(await post(`/posts/${code}/like`, alice));
    await db().user.update({ where: { id: author.id }, data: { suspended: true } });
    expectError(await post(`/posts/${code}/like`, bob), 403, "suspended");
    expectError(await post(`/posts/${code}/comments`, bob, { body: "hello" }), 403, "suspended");
    expect((await del(`/posts/${code}/like`, alice)).body).toEqual({ liked: false, like_count: 0 });
  });

  it("likes are Relay only", async () => {
    const { code } = await createTestPost(owner.id);
    expectError(await api(`/posts/${code}/like`, { method: "POST", key: alice.apiKey }), 404, "not_found");
  });
});

describe("comments", () => {
  it("create returns {comment} with user and like_count; the list has user, like_count and liked", async () => {
    const { code } = await createTestPost(owner.id);
    const made = await post(`/posts/${code}/comments`, alice, { body: "  nice shot  " });
    expectOk(made);
    expect(made.body.comment).toMatchObject({
      body: "nice shot",
      like_count: 0,
      liked: false,
      user: { id: alice.id, username: alice.username },
    });
    expect(new Date(made.body.comment.created_at).toISOString()).toBe(made.body.comment.created_at);
    await post(`/posts/${code}/comments`, bob, { body: "second" });

    const list = await get(`/posts/${code}/comments`, owner);
    expectOk(list);
    expect(list.body.comments.map((c: { body: string }) => c.body)).toEqual(["second", "nice shot"]);
    expect(list.body.comments[1]).toMatchObject({ id: made.body.comment.id, like_count: 0, liked: false, user: { id: alice.id } });
    expect((await postCounts(code)).commentCount).toBe(2);
    expect((await get(`/posts/${code}`, bob)).body.post.comment_count).toBe(2);
  });

  it("a body of 200 characters is accepted, 201 is rejected (not truncated), empty is rejected", async () => {
    const { code } = await createTestPost(owner.id);
    const exact = "é".repeat(200);
    expect((await post(`/posts/${code}/comments`, alice, { body: exact })).body.comment.body).toBe(exact);
    expectError(await post(`/posts/${code}/comments`, alice, { body: "x".repeat(201) }), 400, "invalid_request");
    expectError(await post(`/posts/${code}/comments`, alice, { body: "   " }), 400, "invalid_request");
    expectError(await post(`/posts/${code}/comments`, alice, {}), 400, "invalid_request");
    expect((await postCounts(code)).commentCount).toBe(1);
  });

  it("lists at most the newest 500", async () => {
    const { id, code } = await createTestPost(owner.id);
    const base = Date.UTC(2026, 0, 1);
    await db().comment.createMany({
      data: Array.from({ length: 501 }, (_, i) => ({ postId: id, userId: alice.id, body: `c${i}`, createdAt: new Date(base + i * 1000) })),
    });
    const list = await get(`/posts/${code}/comments`, bob);
    expect(list.body.comments).toHaveLength(500);
    expect(list.body.comments[0].body).toBe("c500");
    expect(list.body.comments[499].body).toBe("c1");
  });

  it("comments of hidden or moderated posts are not readable; private posts with access are", async () => {
    const hidden = await createTestPost(owner.id, { privacy: "private" });
    expectError(await get(`/posts/${hidden.code}/comments`, alice), 404, "not_found");
    expectError(await post(`/posts/${hidden.code}/comments`, alice, { body: "x" }), 404, "not_found");
    const moderated = await createTestPost(owner.id, { moderated: true });
    expectError(await get(`/posts/${moderated.code}/comments`, alice), 403, "moderated");
    expectOk(await get(`/posts/${hidden.code}/comments`, owner));
  });

  it("comments by suspended users are left out", async () => {
    const { code } = await createTestPost(owner.id);
    const gone = await createTestUser();
    await post(`/posts/${code}/comments`, gone, { body: "soon suspended" });
    await post(`/posts/${code}/comments`, alice, { body: "stays" });
    await db().user.update({ where: { id: gone.id }, data: { suspended: true } });
    const list = await get(`/posts/${code}/comments`, bob);
    expect(list.body.comments.map((c: { body: string }) => c.body)).toEqual(["stays"]);
  });

  it("delete: the author or the post's owner; others 403 forbidden; twice 404", async () => {
    const { code } = await createTestPost(owner.id);
    const a = (await post(`/posts/${code}/comments`, alice, { body: "by alice" })).body.comment.id;
    const b = (await post(`/posts/${code}/comments`, alice, { body: "again" })).body.comment.id;
    expectError(await del(`/comments/${a}`, bob), 403, "forbidden");
    const byAuthor = await del(`/comments/${a}`, alice);
    expectOk(byAuthor);
    expect(byAuthor.body).toEqual({ id: a, deleted: true });
    expect((await del(`/comments/${b}`, owner)).body).toEqual({ id: b, deleted: true });
    expectError(await del(`/comments/${a}`, alice), 404, "not_found");
    expectError(await del(`/comments/nope`, alice), 404, "not_found");
    expect((await postCounts(code)).commentCount).toBe(0);
  });
});

describe("comment likes", () => {
  it("POST on, DELETE off, idempotent; liked and like_count show in the list", async () => {
    const { code } = await createTestPost(owner.id);
    const id = (await post(`/posts/${code}/comments`, alice, { body: "like me" })).body.comment.id;
    expect((await post(`/comments/${id}/like`, bob)).body).toEqual({ liked: true, like_count: 1 });
    expect((await post(`/comments/${id}/like`, bob)).body).toEqual({ liked: true, like_count: 1 });
    expect((await post(`/comments/${id}/like`, owner)).body).toEqual({ liked: true, like_count: 2 });
    const list = await get(`/posts/${code}/comments`, bob);
    expect(list.body.comments[0]).toMatchObject({ like_count: 2, liked: true });
    expect((await get(`/posts/${code}/comments`, alice)).body.comments[0].liked).toBe(false);
    expect((await del(`/comments/${id}/like`, bob)).body).toEqual({ liked: false, like_count: 1 });
    expect((await del(`/comments/${id}/like`, bob)).body).toEqual({ liked: false, like_count: 1 });
  });

  it("unknown comments are 404; comments of posts the caller cannot see are 404", async () => {
    expectError(await post(`/comments/nope/like`, bob), 404, "not_found");
    const hidden = await createTestPost(owner.id, { privacy: "private" });
    const id = (await post(`/posts/${hidden.code}/comments`, owner, { body: "note to self" })).body.comment.id;
    expectError(await post(`/comments/${id}/like`, bob), 404, "not_found");
    expectError(await del(`/comments/${id}`, bob), 404, "not_found");
  });

  it("a comment of a suspended user cannot be liked (it is not listed): 404", async () => {
    const { code } = await createTestPost(owner.id);
    const gone = await createTestUser();
    const id = (await post(`/posts/${code}/comments`, gone, { body: "x" })).body.comment.id;
    await db().user.update({ where: { id: gone.id }, data: { suspended: true } });
    expectError(await post(`/comments/${id}/like`, bob), 404, "not_found");
  });
});
