/**
 * POST /posts/{code}/report, POST /users/{id}/report and Relay POST /comments/{id}/report:
 * every row of interface.md's report table, the error types chosen for them
 * (docs/reports.md), storage and duplicates, and the shared 3-a-minute bucket.
 *
 * The counter store is fresh per test and each test reports at most three times per
 * reporter, so the shared bucket never interferes outside the test written for it.
 */
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { resolveReport } from "@/lib/reports/review";
import { useCounterStore } from "../support/counters";
import { useTestDatabase } from "../support/db";
import { createTestPost, createTestTeam, createTestUser, type TestUser } from "../support/fixtures";
import { api, relay, type Reply } from "../support/http";

useTestDatabase();
useCounterStore({ perTest: true });

const post = (u: TestUser, code: string, body: unknown = {}, ip?: string) =>
  api(`/posts/${code}/report`, { method: "POST", key: u.apiKey, body, ip });
const user = (u: TestUser, id: string, body: unknown = {}, ip?: string) =>
  api(`/users/${id}/report`, { method: "POST", key: u.apiKey, body, ip });
const comment = (u: TestUser, id: string, body: unknown = {}, ip?: string) =>
  relay(`/comments/${id}/report`, { method: "POST", key: u.relayKey, body, ip });

function expectReported(reply: Reply): void {
  expect(reply.status, reply.text).toBe(200);
  expect(reply.body).toEqual({ reported: true });
}

function expectError(reply: Reply, status: number, type: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body.error.type).toBe(type);
}

async function block(blockerId: string, blockedId: string): Promise<void> {
  await db().block.create({ data: { blockerId, blockedId } });
}

async function createComment(postId: string, userId: string): Promise<string> {
  const row = await db().comment.create({ data: { postId, userId, body: "a comment" } });
  return row.id;
}

const reportsBy = (reporterId: string) => db().report.findMany({ where: { reporterId }, orderBy: { createdAt: "asc" } });

describe("POST /posts/{code}/report", () => {
  it("stores reporter, target, reason and ip, and answers {reported: true}", async () => {
    const [author, reporter] = [await createTestUser(), await createTestUser()];
    const { id, code } = await createTestPost(author.id);
    expectReported(await post(reporter, code, { reason: "  spam  " }, "203.0.113.9"));
    expect(await reportsBy(reporter.id)).toEqual([
      expect.objectContaining({
        targetType: "post",
        postId: id,
        targetUserId: null,
        commentId: null,
        reason: "spam",
        ip: "203.0.113.9",
        status: "open",
      }),
    ]);
  });

  it("reason is optional: absent, null and blank are stored as null; Relay works the same", async () => {
    const author = await createTestUser();
    const codes = [(await createTestPost(author.id)).code, (await createTestPost(author.id)).code, (await createTestPost(author.id)).code];
    const reporter = await createTestUser();
    expectReported(await post(reporter, codes[0]));
    expectReported(await post(reporter, codes[1], { reason: null }));
    expectReported(await relay(`/posts/${codes[2]}/report`, { method: "POST", key: reporter.relayKey, body: { reason: " " } }));
    expect((await reportsBy(reporter.id)).map((r) => r.reason)).toEqual([null, null, null]);
  });

  it("a repeated report while the first is open is accepted without a second row; after a decision it files a new one", async () => {
    const [author, reporter] = [await createTestUser(), await createTestUser()];
    const { code } = await createTestPost(author.id);
    expectReported(await post(reporter, code, { reason: "first" }));
    expectReported(await post(reporter, code, { reason: "again" }));
    expect((await reportsBy(reporter.id)).map((r) => r.reason)).toEqual(["first"]);
    await resolveReport((await reportsBy(reporter.id))[0].id, "dismissed");
    expectReported(await post(reporter, code, { reason: "it is back" }));
    expect((await reportsBy(reporter.id)).map((r) => [r.reason, r.status])).toEqual([
      ["first", "dismissed"],
      ["it is back", "open"],
    ]);
  });

  it("400 for an empty or invalid code and for a reason over 200 characters", async () => {
    const [author, reporter] = [await createTestUser(), await createTestUser()];
    const { code } = await createTestPost(author.id);
    expectError(await post(reporter, "not%20a%20code"), 400, "invalid_request");
    expectError(await post(reporter, "x".repeat(65)), 400, "invalid_request");
    expectError(await post(reporter, "%20"), 400, "invalid_request");
    const reporter2 = await createTestUser();
    expectError(await post(reporter2, code, { reason: "r".repeat(201) }), 400, "invalid_request");
    expectError(await post(reporter2, code, { reason: 5 }), 400, "invalid_request");
    // 200 characters (astral ones count once) is within the limit.
    expectReported(await post(reporter2, code, { reason: "😀".repeat(200) }));
    expect(await db().report.count({ where: { reporterId: { in: [reporter.id, reporter2.id] } } })).toBe(1);
  });

  it("403 moderated for a post that is already moderated", async () => {
    const [author, reporter] = [await createTestUser(), await createTestUser()];
    const { code } = await createTestPost(author.id, { moderated: true });
    expectError(await post(reporter, code), 403, "moderated");
  });

  it("403 forbidden for the reporter's own post, moderated or not, and a team post of their team", async () => {
    const owner = await createTestUser({ plan: "ultra" });
    const team = await createTestTeam(owner.id);
    expectError(await post(owner, (await createTestPost(owner.id)).code), 403, "forbidden");
    expectError(await post(owner, (await createTestPost(owner.id, { moderated: true, privacy: "private" })).code), 403, "forbidden");
    expectError(await post(owner, (await createTestPost(owner.id, { teamId: team.id })).code), 403, "forbidden");
    expect(await reportsBy(owner.id)).toEqual([]);
  });

  it("403 blocked when the author blocked the reporter; the reporter's own block does not stop a report", async () => {
    const [author, blockedReporter, blockingReporter] = [await createTestUser(), await createTestUser(), await createTestUser()];
    const { code } = await createTestPost(author.id);
    await block(author.id, blockedReporter.id);
    await block(blockingReporter.id, author.id);
    expectError(await post(blockedReporter, code), 403, "blocked");
    expectReported(await post(blockingReporter, code));
  });

  it("404 for an unknown code and for private, draft and team posts the reporter cannot see", async () => {
    const author = await createTestUser({ plan: "ultra" });
    const team = await createTestTeam(author.id);
    const reporter = await createTestUser();
    expectError(await post(reporter, "NoSuchCode"), 404, "not_found");
    expectError(await post(reporter, (await createTestPost(author.id, { privacy: "private" })).code), 404, "not_found");
    expectError(await post(reporter, (await createTestPost(author.id, { draft: true })).code), 404, "not_found");
    const other = await createTestUser();
    expectError(await post(other, (await createTestPost(author.id, { teamId: team.id })).code), 404, "not_found");
    // Hidden wins over moderated: a private moderated post does not reveal that it exists.
    expectError(await post(other, (await createTestPost(author.id, { privacy: "private", moderated: true })).code), 404, "not_found");
  });

  it("a private post shared with the reporter through its access list can be reported; unlisted posts too", async () => {
    const [author, reporter] = [await createTestUser(), await createTestUser()];
    const shared = await createTestPost(author.id, { privacy: "private" });
    await db().postAccess.create({ data: { postId: shared.id, userId: reporter.id } });
    expectReported(await post(reporter, shared.code));
    expectReported(await post(reporter, (await createTestPost(author.id, { privacy: "unlisted" })).code));
  });
});

describe("POST /users/{id}/report", () => {
  it("stores the reported user, by id or by username on either surface", async () => {
    const [target, other, reporter] = [await createTestUser(), await createTestUser(), await createTestUser()];
    expectReported(await user(reporter, target.id, { reason: "impersonation" }, "198.51.100.20"));
    expectReported(await relay(`/users/${other.username.toUpperCase()}/report`, { method: "POST", key: reporter.relayKey, body: {} }));
    expect(await reportsBy(reporter.id)).toEqual([
      expect.objectContaining({
        targetType: "user",
        targetUserId: target.id,
        postId: null,
        commentId: null,
        reason: "impersonation",
        ip: "198.51.100.20",
      }),
      expect.objectContaining({ targetType: "user", targetUserId: other.id, reason: null }),
    ]);
  });

  it("400 for an empty or invalid id and for a reason over 200 characters", async () => {
    const [target, reporter] = [await createTestUser(), await createTestUser()];
    expectError(await user(reporter, "%20"), 400, "invalid_request");
    expectError(await user(reporter, "no%20spaces"), 400, "invalid_request");
    expectError(await user(reporter, "x".repeat(65)), 400, "invalid_request");
    const reporter2 = await createTestUser();
    expectError(await user(reporter2, target.id, { reason: "r".repeat(201) }), 400, "invalid_request");
    expectError(
      await api(`/users/${target.id}/report`, {
        method: "POST",
        key: reporter2.apiKey,
        rawBody: "{nope",
        headers: { "content-type": "application/json" },
      }),
      400,
      "invalid_request",
    );
  });

  it("403 suspended when the user is already suspended", async () => {
    const [target, reporter] = [await createTestUser({ suspended: true }), await createTestUser()];
    expectError(await user(reporter, target.id), 403, "suspended");
  });

  it("403 forbidden when reporting yourself: by id, by username or as @me", async () => {
    const reporter = await createTestUser();
    expectError(await user(reporter, reporter.id), 403, "forbidden");
    expectError(await user(reporter, reporter.username), 403, "forbidden");
    expectError(await user(reporter, "@me"), 403, "forbidden");
    expect(await reportsBy(reporter.id)).toEqual([]);
  });

  it("403 blocked when a block exists either way", async () => {
    const [target, blocker, blocked] = [await createTestUser(), await createTestUser(), await createTestUser()];
    await block(blocker.id, target.id);
    await block(target.id, blocked.id);
    expectError(await user(blocker, target.id), 403, "blocked");
    expectError(await user(blocked, target.id), 403, "blocked");
  });

  it("404 for an unknown user", async () => {
    const reporter = await createTestUser();
    expectError(await user(reporter, "nobody-here"), 404, "not_found");
  });
});

describe("Relay POST /comments/{id}/report", () => {
  it("stores the comment; the endpoint does not exist on the API", async () => {
    const [author, commenter, reporter] = [await createTestUser(), await createTestUser(), await createTestUser()];
    const { id: postId } = await createTestPost(author.id);
    const commentId = await createComment(postId, commenter.id);
    expectReported(await comment(reporter, commentId, { reason: "abuse" }, "192.0.2.4"));
    expect(await reportsBy(reporter.id)).toEqual([
      expect.objectContaining({ targetType: "comment", commentId, postId: null, targetUserId: null, reason: "abuse", ip: "192.0.2.4" }),
    ]);
    expectError(await api(`/comments/${commentId}/report`, { method: "POST", key: reporter.apiKey, body: {} }), 404, "not_found");
  });

  it("400 for an invalid id or a reason over 200 characters", async () => {
    const reporter = await createTestUser();
    expectError(await comment(reporter, "no%20spaces"), 400, "invalid_request");
    expectError(await comment(reporter, "%20"), 400, "invalid_request");
    expectError(await comment(reporter, "abc", { reason: "r".repeat(201) }), 400, "invalid_request");
  });

  it("404 for an unknown comment and for a comment on a post the reporter cannot see", async () => {
    const [author, reporter] = [await createTestUser(), await createTestUser()];
    const hidden = await createTestPost(author.id, { privacy: "private" });
    expectError(await comment(reporter, "nosuchcomment"), 404, "not_found");
    const reply = await comment(reporter, await createComment(hidden.id, author.id));
    expectError(reply, 404, "not_found");
    expect(reply.body.error.message).toContain("comment");
  });

  it("403 forbidden for the reporter's own comment, even on someone else's post", async () => {
    const [author, reporter] = [await createTestUser(), await createTestUser()];
    const { id: postId } = await createTestPost(author.id);
    expectError(await comment(reporter, await createComment(postId, reporter.id)), 403, "forbidden");
  });

  it("403 moderated on a moderated post, suspended for a suspended author, blocked when the author blocked the reporter", async () => {
    const [author, suspended, reporter] = [await createTestUser(), await createTestUser({ suspended: true }), await createTestUser()];
    const moderated = await createTestPost(author.id, { moderated: true });
    const open = await createTestPost(author.id);
    expectError(await comment(reporter, await createComment(moderated.id, author.id)), 403, "moderated");
    expectError(await comment(reporter, await createComment(open.id, suspended.id)), 403, "suspended");
    await block(author.id, reporter.id);
    expectError(await comment(reporter, await createComment(open.id, author.id)), 403, "blocked");
    expect(await reportsBy(reporter.id)).toEqual([]);
  });
});

describe("the shared reports bucket", () => {
  it("3 a minute across post, user and comment reports, then 429 with Retry-After; refused reports count too", async () => {
    const [author, target, reporter] = [await createTestUser(), await createTestUser(), await createTestUser()];
    const { id: postId, code } = await createTestPost(author.id);
    const commentId = await createComment(postId, author.id);
    const first = await post(reporter, code);
    expectReported(first);
    expect(first.headers.get("x-ratelimit-limit")).toBe("3");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("2");
    expectReported(await user(reporter, target.id));
    expectError(await comment(reporter, "nosuchcomment"), 404, "not_found");
    for (const refused of [await comment(reporter, commentId), await post(reporter, code), await user(reporter, target.id)]) {
      expectError(refused, 429, "rate_limited");
      expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
    expect(await db().report.count({ where: { reporterId: reporter.id } })).toBe(2);
    // Per reporter: someone else still has their three.
    expectReported(await post(await createTestUser(), code));
  });

  it("team keys are refused (401) and a suspended reporter gets 403 suspended", async () => {
    const owner = await createTestUser({ plan: "ultra" });
    const team = await createTestTeam(owner.id);
    const { code } = await createTestPost((await createTestUser()).id);
    expectError(await api(`/posts/${code}/report`, { method: "POST", key: team.key, body: {} }), 401, "unauthorized");
    expectError(await post(await createTestUser({ suspended: true }), code), 403, "suspended");
  });
});
