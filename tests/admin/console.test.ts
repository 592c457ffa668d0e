/**
 * The operator's console domain (lib/admin, docs/admin.md) and its admin CLI commands
 * (`user role`, `invite create|list|revoke`, `audit list`, and the audit entry every
 * changing command writes), on a real database: SQLite, or PostgreSQL with TEST_DATABASE_URL.
 */
import { describe, expect, it } from "vitest";
import { listAudit, type Actor } from "@/lib/audit/log";
import { createInvite, listInvites, newInviteCode, revokeInvite } from "@/lib/admin/invites";
import { overview } from "@/lib/admin/overview";
import { moderationQueue, previewObject, quarantinePost, releasePost, removePost } from "@/lib/admin/posts";
import { decideReport, reportQueue } from "@/lib/admin/reports";
import { isActiveAdmin, roleOf, setRole } from "@/lib/admin/roles";
import {
  changePlan,
  changePriorityMinutes,
  changeQuota,
  searchUsers,
  suspendAccount,
  unsuspendAccount,
  userDetail,
} from "@/lib/admin/users";
import { signUp } from "@/lib/auth/register";
import { runAdmin } from "@/lib/cli/admin";
import { db } from "@/lib/db/client";
import { reportComment, reportPost, reportUser } from "@/lib/reports/submit";
import { storage } from "@/lib/storage";
import { expectDomainError } from "../cli/helpers";
import { withRegistration } from "../relay-account/support";
import { useTestDatabase } from "../support/db";
import { createTestPost, createTestUser } from "../support/fixtures";

type Json = Record<string, unknown>;

async function ok(...argv: string[]): Promise<Json> {
  const result = await runAdmin(argv);
  expect(result.output, JSON.stringify(result.output)).not.toHaveProperty("error");
  expect(result.exitCode).toBe(0);
  return result.output as Json;
}

async function fails(type: string, ...argv: string[]): Promise<void> {
  const result = await runAdmin(argv, { log: () => {} });
  expect(result.output).toEqual({ error: { type, message: expect.any(String) } });
  expect(result.exitCode).toBe(1);
}

const webActor = (userId: string, name: string): Actor => ({ source: "web", userId, name });

async function newestAudit(): Promise<{ action: string; source: string; actorName: string; targetId: string; detail: unknown }> {
  const { items } = await listAudit({ limit: 1 });
  return items[0];
}

describe("roles", () => {
  useTestDatabase();

  it("user role makes an admin and back, by username in any case; the CLI call is audited", async () => {
    const user = await createTestUser({ username: "RoleCarol" });
    expect(await roleOf(user.id)).toBe("user");
    expect(await ok("user", "role", "--user", "rolecarol", "--role", "admin")).toEqual({ id: user.id, role: "admin" });
    expect(await isActiveAdmin(user.id)).toBe(true);
    const entry = await newestAudit();
    expect(entry).toMatchObject({ action: "user.role", source: "cli", targetId: user.id, detail: { role: "admin" } });
    expect(entry.actorName).not.toBe("");
    expect(await ok("user", "role", "--user", user.id, "--role", "user")).toEqual({ id: user.id, role: "user" });
    expect(await isActiveAdmin(user.id)).toBe(false);
  });

  it("bad roles, unknown users and missing flags are refused before anything changes", async () => {
    const user = await createTestUser();
    await fails("invalid_request", "user", "role", "--user", user.username, "--role", "root");
    await fails("invalid_request", "user", "role", "--user", user.username);
    await fails("not_found", "user", "role", "--user", "nobody-here", "--role", "admin");
    expect(await roleOf(user.id)).toBe("user");
  });

  it("a suspended admin is no active admin; on the web nobody changes their own role or suspends themselves", async () => {
    const admin = await createTestUser();
    const other = await createTestUser();
    await ok("user", "role", "--user", admin.id, "--role", "admin");
    const me = webActor(admin.id, admin.username);
    await expectDomainError(setRole(me, admin.id, "user"), "forbidden");
    await expectDomainError(suspendAccount(me, admin.id), "forbidden");
    expect(await roleOf(admin.id)).toBe("admin");
    await setRole(me, other.id, "admin");
    expect(await roleOf(other.id)).toBe("admin");
    await suspendAccount(webActor(other.id, other.username), admin.id);
    expect(await isActiveAdmin(admin.id)).toBe(false);
  });
});

describe("users", () => {
  useTestDatabase();

  it("search matches part of a name in any letter case, newest first, by pages", async () => {
    const made = [];
    for (const name of ["SearchAnna", "searchBen", "SEARCHcleo", "other1"]) {
      made.push(await createTestUser({ username: name }));
      await db().user.update({ where: { id: made.at(-1)!.id }, data: { createdAt: new Date(Date.now() - 10_000 + made.length * 1000) } });
    }
    const first = await searchUsers({ query: "aRcH", pageSize: 2 });
    expect(first).toMatchObject({ total: 3, page: 1, pageCount: 2 });
    expect(first.users.map((u) => u.username)).toEqual(["SEARCHcleo", "searchBen"]);
    const second = await searchUsers({ query: "aRcH", page: 2, pageSize: 2 });
    expect(second.users.map((u) => u.username)).toEqual(["SearchAnna"]);
    // Past the end lands on the last page rather than an empty one.
    expect((await searchUsers({ query: "search", page: 99, pageSize: 2 })).page).toBe(2);
    // LIKE wildcards in the query are plain characters.
    expect((await searchUsers({ query: "%" })).total).toBe(0);
    await createTestUser({ username: "snake_case1" });
    await createTestUser({ username: "snakeXcase2" });
    expect((await searchUsers({ query: "E_C" })).users.map((u) => u.username)).toEqual(["snake_case1"]);
  });

  it("detail lists the user's posts of every privacy; every lever sets its value and writes an audit entry", async () => {
    const admin = await createTestUser();
    const user = await createTestUser();
    await createTestPost(user.id, { privacy: "private", title: "Secret" });
    await createTestPost(user.id, { privacy: "public", moderated: true });
    const me = webActor(admin.id, admin.username);

    await changePlan(me, user.username, "ultra");
    expect(await newestAudit()).toMatchObject({ action: "user.plan", source: "web", actorName: admin.username, detail: { plan: "ultra" } });
    await changeQuota(me, user.id, 5 * 1024 ** 3);
    expect(await newestAudit()).toMatchObject({ action: "user.quota", detail: { quota: 5 * 1024 ** 3 } });
    await changePriorityMinutes(me, user.id, 42);
    expect(await newestAudit()).toMatchObject({ action: "user.priority", detail: { priority_minutes: 42 } });
    await suspendAccount(me, user.id);
    expect(await newestAudit()).toMatchObject({ action: "user.suspend", targetId: user.id });

    const detail = await userDetail(user.id);
    expect(detail).toMatchObject({
      plan: "ultra",
      quotaOverride: 5 * 1024 ** 3,
      priorityMinutes: 42,
      suspended: true,
      role: "user",
      postCount: 2,
    });
    expect(detail.posts.map((p) => p.privacy).sort()).toEqual(["private", "public"]);

    await unsuspendAccount(me, user.id);
    expect((await userDetail(user.id)).suspended).toBe(false);
    await changeQuota(me, user.id, null);
    expect((await userDetail(user.id)).quotaOverride).toBeNull();
    await expectDomainError(changePriorityMinutes(me, user.id, -1), "invalid_request");
    await expectDomainError(userDetail("no-such-id"), "not_found");
  });
});

describe("invites", () => {
  useTestDatabase();

  it("invite create gives a code that signs one person up; list shows it used and by whom", async () => {
    const created = await ok("invite", "create", "--days", "3");
    expect(created).toMatchObject({ status: "unused", used_at: null, used_by: null, created_by: null });
    const code = String(created.code);
    expect(code).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect(created.url).toBe(`http://localhost:3000/register?invite=${code}`);
    const lifetime = Date.parse(String(created.expires_at)) - Date.parse(String(created.created_at));
    expect(lifetime).toBe(3 * 86_400_000);

    await withRegistration("invite", () =>
      signUp({ username: "invited1", password: "long enough password", invite: code, userAgent: null, ip: "203.0.113.9" }),
    );
    const { invites } = (await ok("invite", "list")) as { invites: Json[] };
    expect(invites.find((i) => i.code === code)).toMatchObject({ status: "used", used_by: "invited1" });
    // A used code is history: it is not revoked.
    await fails("invalid_request", "invite", "revoke", "--code", code);
  });

  it("never hands out a code that starts with a dash, which the CLI would read as a flag", () => {
    const draws = [Buffer.from("fbef", "hex"), Buffer.from("fb", "hex"), Buffer.from("6869", "hex")];
    expect(draws.slice(0, 2).map((draw) => draw.toString("base64url"))).toEqual(["--8", "-w"]);
    expect(newInviteCode(() => draws.shift()!)).toBe("aGk");
    expect(draws).toEqual([]);
  });

  it("a revoked code no longer signs anyone up; unknown codes and bad lifetimes are refused", async () => {
    const admin = await createTestUser();
    const invite = await createInvite(webActor(admin.id, admin.username));
    expect(invite.createdBy).toBe(admin.username);
    expect(invite.expiresAt!.getTime() - invite.createdAt.getTime()).toBe(7 * 86_400_000);
    expect(await ok("invite", "revoke", "--code", invite.code)).toEqual({ code: invite.code, revoked: true });
    expect(await newestAudit()).toMatchObject({ action: "invite.revoke", source: "cli", targetId: invite.code });
    await withRegistration("invite", () =>
      expectDomainError(
        signUp({ username: "invited2", password: "long enough password", invite: invite.code, userAgent: null, ip: "203.0.113.9" }),
        "forbidden",
      ),
    );
    await fails("not_found", "invite", "revoke", "--code", invite.code);
    await fails("invalid_request", "invite", "create", "--days", "0");
    await fails("invalid_request", "invite", "create", "--days", "366");
    await expectDomainError(revokeInvite(webActor(admin.id, admin.username), "nope"), "not_found");
  });

  it("an expired code is listed as expired", async () => {
    const admin = await createTestUser();
    const old = await createInvite(webActor(admin.id, admin.username), { days: 1 }, new Date(Date.now() - 2 * 86_400_000));
    const { invites } = await listInvites({ limit: 100 });
    expect(invites.find((i) => i.code === old.code)?.status).toBe("expired");
  });
});

describe("reports and moderation", () => {
  useTestDatabase();

  it("the web queue and the CLI act on the same report rows, with previews of the reported post", async () => {
    const admin = await createTestUser();
    const author = await createTestUser();
    const reporter = await createTestUser();
    const post = await createTestPost(author.id, { privacy: "public", title: "Reported", files: 2 });
    const comment = await db().comment.create({ data: { postId: post.id, userId: author.id, body: "mean" } });
    const input = { reporterId: reporter.id, ip: "203.0.113.4", reason: "spam" };
    const onPost = await reportPost(post.code, input);
    const onComment = await reportComment(comment.id, input);
    const onUser = await reportUser(author.id, input);

    const queue = await reportQueue();
    expect(queue.reports.map((r) => r.id).sort()).toEqual([onPost.id, onComment.id, onUser.id].sort());
    const byId = new Map(queue.reports.map((r) => [r.id, r]));
    expect(byId.get(onPost.id)?.post?.files.map((f) => f.index)).toEqual([0, 1]);
    expect(byId.get(onComment.id)?.post?.code).toBe(post.code);
    expect(byId.get(onUser.id)?.post).toBeNull();

    await decideReport(webActor(admin.id, admin.username), onPost.id, "resolved");
    expect(await newestAudit()).toMatchObject({ action: "report.resolve", source: "web", targetId: onPost.id });
    await ok("report", "resolve", "--id", onUser.id, "--dismiss");
    expect(await newestAudit()).toMatchObject({ action: "report.dismiss", source: "cli", targetId: onUser.id });
    const open = (await ok("report", "list", "--open")) as { reports: Json[] };
    expect(open.reports.map((r) => r.id)).toEqual([onComment.id]);
    expect((await reportQueue()).reports.map((r) => r.id)).toEqual([onComment.id]);
    await expectDomainError(decideReport(webActor(admin.id, admin.username), "nope", "resolved"), "not_found");
  });

  it("the moderation queue holds moderated posts, oldest first; release and delete take them out", async () => {
    const admin = await createTestUser();
    const me = webActor(admin.id, admin.username);
    const author = await createTestUser();
    const older = await createTestPost(author.id, { moderated: true, createdAt: new Date(Date.now() - 60_000) });
    const newer = await createTestPost(author.id, { moderated: true, files: 1 });
    const fine = await createTestPost(author.id, { moderated: false });

    const queue = await moderationQueue();
    expect(queue.posts.map((p) => p.code)).toEqual([older.code, newer.code]);
    expect(queue.posts[0].author?.id).toBe(author.id);

    await releasePost(me, older.code);
    expect(await newestAudit()).toMatchObject({ action: "post.release", targetId: older.code });
    expect((await db().post.findUnique({ where: { code: older.code } }))?.moderated).toBe(false);

    const preview = await previewObject(newer.code, 0, false);
    expect(preview?.key).toBe(newer.keys[0]);
    expect(await previewObject(newer.code, 0, true)).toBeNull();
    expect(await previewObject(newer.code, 5, false)).toBeNull();

    await removePost(me, newer.code);
    expect(await newestAudit()).toMatchObject({ action: "post.delete", targetId: newer.code });
    expect(await db().post.findUnique({ where: { code: newer.code } })).toBeNull();
    expect(await storage().stat(newer.keys[0])).toBeNull();
    expect((await moderationQueue()).posts).toEqual([]);

    await quarantinePost(me, fine.code);
    expect((await moderationQueue()).posts.map((p) => p.code)).toEqual([fine.code]);
    await expectDomainError(removePost(me, "nope00"), "not_found");
    await expectDomainError(releasePost(me, "nope00"), "not_found");
  });
});

describe("overview and the audit log", () => {
  useTestDatabase();

  it("counts users, posts, files, bytes, jobs, open reports and moderated posts; uploads per day over 30 days", async () => {
    const user = await createTestUser({ suspended: true });
    const reporter = await createTestUser();
    const post = await createTestPost(user.id, { files: 2 });
    await reportPost(post.code, { reporterId: reporter.id, ip: "203.0.113.1", reason: null });
    await db().post.update({ where: { id: post.id }, data: { moderated: true } });
    await db().job.create({ data: { kind: "hls", payload: "{}" } });
    await db().job.create({ data: { kind: "hls", payload: "{}", state: "running" } });
    const now = new Date("2026-03-10T12:00:00Z");
    await db().usageDay.create({ data: { subject: `u:${user.id}`, day: "2026-03-10", bytes: 100n, uploadCount: 2 } });
    await db().usageDay.create({ data: { subject: "t:team", day: "2026-03-10", bytes: 50n, uploadCount: 1 } });
    await db().usageDay.create({ data: { subject: `u:${user.id}`, day: "2026-02-01", bytes: 1n, uploadCount: 9 } });

    const figures = await overview(now);
    const sizes = await db().file.aggregate({ _sum: { size: true } });
    expect(figures).toMatchObject({
      users: 2,
      suspendedUsers: 1,
      posts: 1,
      files: 2,
      bytesStored: Number(sizes._sum.size),
      jobsWaiting: 1,
      jobsRunning: 1,
      openReports: 1,
      moderatedPosts: 1,
    });
    expect(figures.uploadsPerDay).toHaveLength(30);
    expect(figures.uploadsPerDay[0].day).toBe("2026-02-09");
    expect(figures.uploadsPerDay.at(-1)).toEqual({ day: "2026-03-10", uploads: 3, bytes: 150 });
    expect(figures.uploadsPerDay.reduce((n, d) => n + d.uploads, 0)).toBe(3);
  });

  it("every changing CLI command writes an entry, never with a key in it; audit list pages newest first", async () => {
    const created = await ok("user", "create", "--username", "AuditDora", "--password", "a long password");
    const app = await ok("app", "create", "--user", "auditdora");
    await ok("app", "regenerate", "--app", String(app.id));
    await ok("app", "revoke", "--app", String(app.id));
    const session = await ok("session", "create", "--user", "auditdora");
    await ok("user", "plan", "--user", "auditdora", "--plan", "ultra");
    const team = await ok("team", "create", "--owner", "auditdora");
    await ok("team", "lapse", "--team", String(team.id));
    await ok("team", "renew", "--team", String(team.id));
    await ok("user", "quota", "--user", "auditdora", "--bytes", "1GB");
    await ok("user", "priority", "--user", "auditdora", "--minutes", "5");
    await ok("user", "suspend", "--user", "auditdora");
    await ok("user", "unsuspend", "--user", "auditdora");
    const post = await createTestPost(String(created.id), { privacy: "public" });
    await ok("post", "moderate", "--code", post.code);
    await ok("post", "unmoderate", "--code", post.code);
    await ok("post", "restrict", "--code", post.code);
    // Reads write nothing.
    await ok("report", "list");
    await ok("invite", "list");

    const listed = (await ok("audit", "list", "--limit", "1000")) as { entries: Json[]; has_more: boolean };
    expect(listed.has_more).toBe(false);
    expect(listed.entries.map((e) => e.action).reverse()).toEqual([
      "user.create",
      "app.create",
      "app.regenerate",
      "app.revoke",
      "session.create",
      "user.plan",
      "team.create",
      "team.lapse",
      "team.renew",
      "user.quota",
      "user.priority",
      "user.suspend",
      "user.unsuspend",
      "post.moderate",
      "post.release",
      "post.restrict",
    ]);
    expect(listed.entries[0]).toMatchObject({
      source: "cli",
      actor: { id: null, name: expect.any(String) },
      target: { type: "post", id: post.code },
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const text = JSON.stringify(listed);
    expect(text).not.toContain(String(app.key));
    expect(text).not.toContain(String(session.key));
    expect(text).not.toContain(String(team.key));
    expect(text).not.toContain("a long password");

    const two = (await ok("audit", "list", "--limit", "2")) as { entries: Json[]; has_more: boolean };
    expect(two.has_more).toBe(true);
    expect(two.entries.map((e) => e.id)).toEqual(listed.entries.slice(0, 2).map((e) => e.id));
    await fails("invalid_request", "audit", "list", "--limit", "0");
    await fails("invalid_request", "audit", "list", "--user", "x");
  });
});
