/**
 * Deleting an account (issue 27 §2, docs/account-deletion.md): by its owner over Relay (what
 * the settings page calls), by the operator (`admin user delete`), and a deletion cut short
 * by a crash, finished by the recovery sweep. Everything of the account goes, files on disk
 * included; other people's counters stay right; the audit entry stays.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { runAdmin } from "@/lib/cli/admin";
import { dataDir } from "@/lib/db/config";
import { db } from "@/lib/db/client";
import { currentOwner, ownerTag } from "@/lib/files/owner-tag";
import { recoverLeftovers } from "@/lib/recovery/recover";
import { renditionKey } from "@/lib/renditions";
import { likePost } from "@/lib/social/likes";
import { createComment } from "@/lib/social/comments";
import { followUser } from "@/lib/social/follows";
import { likeComment } from "@/lib/social/likes";
import { storage } from "@/lib/storage";
import { useCounterStore } from "../support/counters";
import { useTestDatabase } from "../support/db";
import { createTestPost, createTestTeam, createTestUser, type TestUser } from "../support/fixtures";
import { relay } from "../support/http";
import { PASSWORD, withPassword } from "../relay-account/support";

useTestDatabase();
useCounterStore({ perTest: true });
vi.setConfig({ testTimeout: 60_000 });

/** Every stored object of the test's DATA_DIR, as keys. */
async function storedObjects(): Promise<string[]> {
  const root = join(dataDir(), "files");
  if (!existsSync(root)) return [];
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(root.length + 1));
}

interface Leaver {
  user: TestUser;
  /** Someone else, whose counters the leaver moved. */
  other: TestUser;
  otherPost: { id: string; code: string };
  otherCommentId: string;
  posts: { id: string; code: string; keys: string[] }[];
  /** Every object stored for the leaver (originals, a rendition, an HLS segment, the avatar). */
  keys: string[];
}

/** A user with a bit of everything, and another user they liked, commented on and followed. */
async function leaver(): Promise<Leaver> {
  const user = await createTestUser();
  await withPassword(user.id, `${user.username}@example.com`);
  const other = await createTestUser();
  const otherPost = await createTestPost(other.id, { privacy: "public" });
  const posts = [await createTestPost(user.id, { files: 2 }), await createTestPost(user.id, { privacy: "unlisted" })];
  const keys = posts.flatMap((p) => p.keys);
  // A rendition and an HLS stream of the first file, an avatar.
  const first = await db().file.findFirstOrThrow({ where: { postId: posts[0].id, index: 0 } });
  const rendition = renditionKey(first.storageKey, 320);
  const segment = `p/${posts[0].id}/${first.id}.hls/seg0.ts`;
  const avatar = `u/${user.id}/avatar-x.webp`;
  await storage().putBuffer(rendition, Buffer.from("rendition"), "image/webp");
  await storage().putBuffer(segment, Buffer.from("segment"), "video/mp2t");
  await storage().putBuffer(avatar, Buffer.from("avatar"), "image/webp");
  await db().file.update({ where: { id: first.id }, data: { streamKey: `p/${posts[0].id}/${first.id}.hls/`, streamState: "ready" } });
  await db().user.update({ where: { id: user.id }, data: { avatarKey: avatar } });
  keys.push(rendition, segment, avatar);

  // On the other's post: a like, a comment, a like of the other's own comment; follows both ways.
  const otherComment = await createComment(other.id, otherPost.code, "my own post");
  await likePost(user.id, otherPost.code);
  await createComment(user.id, otherPost.code, "nice");
  await likeComment(user.id, otherComment.id);
  await followUser(user.id, other.id);
  await followUser(other.id, user.id);
  // The other likes and comments on the leaver's post: those go with the post.
  await likePost(other.id, posts[0].code);
  await createComment(other.id, posts[0].code, "hello");

  // Things that cascade with the row, and some that do not.
  const folder = await db().folder.create({ data: { code: `f${user.id.slice(-8)}`, userId: user.id, name: "Mine", nameKey: "mine" } });
  await db().folderPost.create({ data: { folderId: folder.id, postId: posts[0].id } });
  await db().shortLink.create({ data: { code: `l${user.id.slice(-8)}`, userId: user.id, url: "https://example.com/" } });
  await db().webhook.create({ data: { userId: user.id, url: "https://example.com/hook", secret: "s", events: "post.created" } });
  await db().passkey.create({ data: { id: `pk${user.id}`, userId: user.id, name: "Key", publicKey: "x", deviceType: "singleDevice" } });
  await db().totpFactor.create({ data: { userId: user.id, secretEncrypted: "x", enabledAt: null } });
  const subject = `u:${user.id}`;
  await db().usageDay.create({ data: { subject, day: "2026-01-01", bytes: 10n, uploadCount: 1 } });
  await db().usageWindow.create({ data: { subject, windowStart: new Date(0), bytes: 10n } });
  return { user, other, otherPost, otherCommentId: otherComment.id, posts, keys };
}

/** Nothing of the leaver is left, and the other's counters are as if the leaver never came. */
async function expectGone(l: Leaver): Promise<void> {
  const { id } = l.user;
  expect(await db().user.findUnique({ where: { id } })).toBeNull();
  expect(await db().post.count({ where: { id: { in: l.posts.map((p) => p.id) } } })).toBe(0);
  expect(await db().file.count({ where: { postId: { in: l.posts.map((p) => p.id) } } })).toBe(0);
  const where = { userId: id };
  const counts = await Promise.all([
    db().relaySession.count({ where }),
    db().app.count({ where }),
    db().webhook.count({ where }),
    db().folder.count({ where }),
    db().shortLink.count({ where }),
    db().passkey.count({ where }),
    db().totpFactor.count({ where }),
    db().like.count({ where }),
    db().comment.count({ where }),
    db().commentLike.count({ where }),
    db().follow.count({ where: { OR: [{ followerId: id }, { followingId: id }] } }),
    db().usageDay.count({ where: { subject: `u:${id}` } }),
    db().usageWindow.count({ where: { subject: `u:${id}` } }),
  ]);
  expect(counts).toEqual(counts.map(() => 0));
  for (const key of l.keys) expect(await storage().stat(key), key).toBeNull();
  const left = await storedObjects();
  for (const post of l.posts) expect(left.filter((k) => k.includes(post.id))).toEqual([]);
  expect(left.filter((k) => k.includes(id))).toEqual([]);

  const post = await db().post.findUniqueOrThrow({ where: { id: l.otherPost.id } });
  expect({ likes: post.likeCount, comments: post.commentCount }).toEqual({ likes: 0, comments: 1 });
  expect(await db().comment.count({ where: { postId: l.otherPost.id } })).toBe(1);
  expect((await db().comment.findUniqueOrThrow({ where: { id: l.otherCommentId } })).likeCount).toBe(0);
  const other = await db().user.findUniqueOrThrow({ where: { id: l.other.id } });
  expect({ followers: other.followerCount, following: other.followingCount }).toEqual({ followers: 0, following: 0 });
  // The other's notifications name nobody who is gone.
  expect(await db().notificationActor.count({ where: { userId: id } })).toBe(0);
  // The other's own things are untouched.
  expect(await storage().stat((await db().file.findFirstOrThrow({ where: { postId: l.otherPost.id } })).storageKey)).not.toBeNull();
}

const auditOf = (id: string) => db().auditEntry.findMany({ where: { action: "user.delete", targetId: id } });

describe("deleting one's own account (Relay, as the settings page does)", () => {
  it("a wrong password changes nothing; the right one removes everything; the audit entry stays", async () => {
    const l = await leaver();
    const wrong = await relay("/users/@me/delete", { method: "POST", key: l.user.relayKey, body: { password: "not my password" } });
    expect(wrong.status).toBe(401);
    const none = await relay("/users/@me/delete", { method: "POST", key: l.user.relayKey, body: {} });
    expect(none.status).toBe(400);
    expect(await db().user.findUniqueOrThrow({ where: { id: l.user.id } })).toMatchObject({ deletingAt: null });
    for (const key of l.keys) expect(await storage().stat(key), key).not.toBeNull();

    const done = await relay("/users/@me/delete", { method: "POST", key: l.user.relayKey, body: { password: PASSWORD } });
    expect(done.status, done.text).toBe(200);
    expect(done.body).toEqual({ id: l.user.id, deleted: true, posts: 2, teams: 0 });
    await expectGone(l);
    expect((await relay("/users/@me", { key: l.user.relayKey })).status).toBe(401);
    expect((await relay(`/users/${l.other.id}`, { key: l.other.relayKey })).body.follower_count).toBe(0);

    const [entry] = await auditOf(l.user.id);
    expect(entry).toMatchObject({
      source: "web",
      actorId: null,
      actorName: l.user.username,
      targetType: "user",
      targetLabel: l.user.username,
    });
    expect(JSON.parse(entry.detail ?? "{}")).toEqual({ self: true });
  });

  it("an app key cannot delete its account", async () => {
    const user = await createTestUser();
    await withPassword(user.id);
    const reply = await relay("/users/@me/delete", { method: "POST", key: user.apiKey, body: { password: PASSWORD } });
    expect([401, 403]).toContain(reply.status);
    expect(await db().user.findUnique({ where: { id: user.id } })).not.toBeNull();
  });

  it("owning a team with other members asks first; with delete_teams the team and its posts go too", async () => {
    const owner = await createTestUser({ plan: "ultra" });
    await withPassword(owner.id);
    const member = await createTestUser();
    const team = await createTestTeam(owner.id);
    await db().teamMember.create({ data: { teamId: team.id, userId: member.id } });
    const teamPost = await createTestPost(member.id, { teamId: team.id });

    const asked = await relay("/users/@me/delete", { method: "POST", key: owner.relayKey, body: { password: PASSWORD } });
    expect(asked.status).toBe(403);
    expect(asked.body.error.message).toMatch(/team/);
    expect(asked.body.error.teams).toEqual([expect.objectContaining({ id: team.id, members: 1 })]);
    expect(await db().user.findUniqueOrThrow({ where: { id: owner.id } })).toMatchObject({ deletingAt: null });

    const done = await relay("/users/@me/delete", {
      method: "POST",
      key: owner.relayKey,
      body: { password: PASSWORD, delete_teams: true },
    });
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ posts: 1, teams: 1 });
    expect(await db().team.findUnique({ where: { id: team.id } })).toBeNull();
    expect(await db().post.findUnique({ where: { id: teamPost.id } })).toBeNull();
    expect(await storage().stat(teamPost.keys[0])).toBeNull();
    expect(await db().user.findUnique({ where: { id: member.id } })).not.toBeNull();
  });

  it("an account without a password or second factor confirms by a recent sign-in", async () => {
    const user = await createTestUser();
    // Its sign-in (the session's opening) is the only proof it has: 11 minutes old is too old.
    await db().relaySession.updateMany({ where: { userId: user.id }, data: { createdAt: new Date(Date.now() - 11 * 60 * 1000) } });
    const stale = await relay("/users/@me/delete", { method: "POST", key: user.relayKey, body: {} });
    expect(stale.status).toBe(403);
    expect(stale.body.error.confirmation_required).toBe(true);
    await db().relaySession.updateMany({ where: { userId: user.id }, data: { confirmedAt: new Date() } });
    const done = await relay("/users/@me/delete", { method: "POST", key: user.relayKey, body: {} });
    expect(done.status, done.text).toBe(200);
    expect(await db().user.findUnique({ where: { id: user.id } })).toBeNull();
  });
});

describe("the operator's delete", () => {
  it("admin user delete --user NAME prints one JSON object and is audited", async () => {
    const l = await leaver();
    const team = await createTestTeam(l.user.id);
    await db().teamMember.create({ data: { teamId: team.id, userId: l.other.id } });
    const result = await runAdmin(["user", "delete", "--user", l.user.username.toUpperCase()]);
    expect(result.exitCode, JSON.stringify(result.output)).toBe(0);
    expect(result.output).toEqual({ id: l.user.id, username: l.user.username, deleted: true, posts: 2, teams: 1 });
    await expectGone(l);
    expect(await db().team.findUnique({ where: { id: team.id } })).toBeNull();
    const [entry] = await auditOf(l.user.id);
    expect(entry).toMatchObject({ source: "cli", targetLabel: l.user.username });

    const again = await runAdmin(["user", "delete", "--user", l.user.id]);
    expect(again).toMatchObject({ exitCode: 1, output: { error: { type: "not_found" } } });
  });
});

/** The owner tag of a process that has exited. */
async function deadTag(): Promise<string> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(child, "exit");
  return ownerTag({ ...currentOwner(), pid: child.pid! });
}

describe("a deletion cut short", () => {
  it("the recovery sweep finishes what a dead process began, and leaves a live one's alone", async () => {
    const l = await leaver();
    // What a crash in step two leaves: the row marked by a process now dead, the ways in
    // gone, one post's files deleted and its rows not yet.
    await db().user.update({ where: { id: l.user.id }, data: { deletingAt: new Date(), deletingBy: await deadTag(), passwordHash: null } });
    await db().relaySession.deleteMany({ where: { userId: l.user.id } });
    await db().app.deleteMany({ where: { userId: l.user.id } });
    for (const key of l.posts[1].keys) await storage().delete(key);

    const live = await createTestUser();
    const livePost = await createTestPost(live.id);
    await db().user.update({ where: { id: live.id }, data: { deletingAt: new Date(), deletingBy: ownerTag() } });

    const report = await recoverLeftovers({ orphanAgeMs: 3_600_000, intervalMs: 0 });
    expect(report.accounts.accounts).toBe(1);
    await expectGone(l);
    expect(await db().user.findUnique({ where: { id: live.id } })).not.toBeNull();
    expect(await db().post.findUnique({ where: { id: livePost.id } })).not.toBeNull();

    // A second sweep finds nothing more to do.
    expect((await recoverLeftovers({ orphanAgeMs: 3_600_000, intervalMs: 0 })).accounts.accounts).toBe(0);
  });
});
