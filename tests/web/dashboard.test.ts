/**
 * The dashboard's server side: apps and keys (with the uploader setups shown once), teams,
 * the team gallery and the delete-confirmation page, on the real test database. The
 * server actions in lib/web/dashboard/actions.ts only add the session lookup and zod
 * parsing on top of these functions; the browser test drives them through the pages.
 */
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../support/db";
import { createTestPost, createTestUser } from "../support/fixtures";
import { authenticateKey } from "@/lib/auth/authenticate";
import { MAX_APPS_PER_USER } from "@/lib/apps/apps";
import { DomainError } from "@/lib/errors";
import { addMember } from "@/lib/teams/teams";
import {
  createDashboardApp,
  dashboardApps,
  regenerateDashboardApp,
  revokeDashboardApp,
  setDashboardGalleryAccess,
} from "@/lib/web/dashboard/apps";
import { attempt } from "@/lib/web/dashboard/result";
import {
  createDashboardTeam,
  dashboardTeamGallery,
  dashboardTeams,
  deleteDashboardTeamKey,
  regenerateDashboardTeamKey,
} from "@/lib/web/dashboard/teams";
import { confirmDelete, deleteTarget } from "@/lib/web/dashboard/delete-post";

async function domainErrorType(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    if (error instanceof DomainError) return error.type;
    throw error;
  }
  throw new Error("expected a DomainError");
}

describe("dashboard apps and keys", () => {
  const testDb = useTestDatabase();

  it("creates an app whose key works and whose uploader setup embeds that key", async () => {
    const user = await createTestUser();
    const { app, setup } = await createDashboardApp(user.id, "  ShareX desk ", true);
    expect(app).toMatchObject({ name: "ShareX desk", galleryAccess: true, revoked: false });
    expect(typeof app.createdAt).toBe("string");

    const principal = await authenticateKey(setup.key, "api-key");
    expect(principal).toMatchObject({ kind: "app", appId: app.id, galleryAccess: true });

    expect(setup.sharexFileName).toBe("mediahost-sharex-desk.sxcu");
    expect(setup.sharex.Version).toBe("16.1.0");
    expect(setup.sharex.Headers["api-key"]).toBe(setup.key);
    expect(setup.sharex.RequestURL).toMatch(/\/api\/upload$/);
    expect(setup.sharex.URL).toBe("{json:post.url}");
    expect(setup.sharex.ErrorMessage).toContain("{json:error.message}");
    // The deletion link is the confirmation page, which deletes on POST only.
    expect(setup.sharex.DeletionURL).toMatch(/\/dashboard\/delete\/\{json:post\.code\}$/);
    expect(setup.chatterino.extra_headers).toContain(`api-key: ${setup.key}`);
    expect(setup.flameshot).toContain(setup.key);
    expect(setup.curl).toContain(`api-key: ${setup.key}`);
    expect(setup.curl).toMatch(/\/api\/upload'$/);
  });

  it("shows when a key was last used: set by its first request, then at most once a minute", async () => {
    const user = await createTestUser();
    const { app, setup } = await createDashboardApp(user.id, "Desk", false);
    const lastUsed = async () => (await dashboardApps(user.id)).find((a) => a.id === app.id)!.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    expect(await authenticateKey(setup.key, "api-key")).toMatchObject({ kind: "app", appId: app.id });
    // Recorded without holding the request up.
    await expect.poll(lastUsed, { timeout: 2000 }).not.toBeNull();
    const first = await lastUsed();
    await authenticateKey(setup.key, "api-key");
    await new Promise((r) => setTimeout(r, 50));
    expect(await lastUsed()).toBe(first);
  });

  it("never lists a key, only its hint, and never another user's apps", async () => {
    const user = await createTestUser();
    const other = await createTestUser();
    const { setup } = await createDashboardApp(user.id, "Laptop", false);
    const listed = await dashboardApps(user.id);
    expect(JSON.stringify(listed)).not.toContain(setup.key);
    expect(listed.map((a) => a.name)).toContain("Laptop");
    expect((await dashboardApps(other.id)).map((a) => a.name)).not.toContain("Laptop");
  });

  it("toggles gallery access, revokes and regenerates, for the owner only", async () => {
    const user = await createTestUser();
    const stranger = await createTestUser();
    const { app, setup } = await createDashboardApp(user.id, "", false);
    expect(app.name).toMatch(/^App \d+$/);

    expect(await domainErrorType(setDashboardGalleryAccess(stranger.id, app.id, true))).toBe("not_found");
    expect(await domainErrorType(revokeDashboardApp(stranger.id, app.id))).toBe("not_found");
    expect(await domainErrorType(regenerateDashboardApp(stranger.id, app.id))).toBe("not_found");

    expect((await setDashboardGalleryAccess(user.id, app.id, true)).galleryAccess).toBe(true);
    expect(await authenticateKey(setup.key, "api-key")).toMatchObject({ galleryAccess: true });

    expect((await revokeDashboardApp(user.id, app.id)).revoked).toBe(true);
    expect(await authenticateKey(setup.key, "api-key")).toBeNull();

    const again = await regenerateDashboardApp(user.id, app.id);
    expect(again.app.revoked).toBe(false);
    expect(again.setup.key).not.toBe(setup.key);
    expect(await authenticateKey(again.setup.key, "api-key")).toMatchObject({ kind: "app", appId: app.id });
  });

  it("stops at the app limit with an error in words", async () => {
    const user = await createTestUser(); // the fixture already has 2 apps
    const existing = (await testDb().db.app.count({ where: { userId: user.id, revokedAt: null } })) as number;
    for (let i = existing; i < MAX_APPS_PER_USER; i++) await createDashboardApp(user.id, `App ${i}`, false);
    const result = await attempt(() => createDashboardApp(user.id, "One too many", false));
    expect(result).toMatchObject({ ok: false, type: "forbidden" });
    expect(result.ok ? "" : result.error).toContain(String(MAX_APPS_PER_USER));
  });
});

describe("dashboard teams", () => {
  useTestDatabase();

  it("needs Ultra to create a team, and gives the owner a working team key", async () => {
    const free = await createTestUser({ plan: "free" });
    expect(await attempt(() => createDashboardTeam(free.id, "Nope"))).toMatchObject({ ok: false, type: "plan_required" });

    const owner = await createTestUser({ plan: "ultra" });
    const { teamId, key } = await createDashboardTeam(owner.id, "Design");
    expect(await authenticateKey(key, "api-key")).toMatchObject({ kind: "team", team: { id: teamId } });

    const member = await createTestUser();
    await addMember(teamId, member.id);
    const [seenByOwner] = await dashboardTeams(owner.id);
    expect(seenByOwner).toMatchObject({ id: teamId, name: "Design", role: "owner", status: "active", hasKey: true });
    expect(seenByOwner.members.map((m) => [m.username, m.role])).toEqual([
      [owner.username, "owner"],
      [member.username, "member"],
    ]);
    expect((await dashboardTeams(member.id))[0]).toMatchObject({ id: teamId, role: "member" });
    expect(JSON.stringify(await dashboardTeams(owner.id))).not.toContain(key);
  });

  it("lets only the owner regenerate or delete the key", async () => {
    const owner = await createTestUser({ plan: "ultra" });
    const member = await createTestUser();
    const { teamId, key } = await createDashboardTeam(owner.id, "Ops");
    await addMember(teamId, member.id);

    expect(await domainErrorType(regenerateDashboardTeamKey(member.id, teamId))).toBe("not_found");
    expect(await domainErrorType(deleteDashboardTeamKey(member.id, teamId))).toBe("not_found");

    const regenerated = await regenerateDashboardTeamKey(owner.id, teamId);
    expect(await authenticateKey(key, "api-key")).toBeNull();
    expect(await authenticateKey(regenerated.key, "api-key")).toMatchObject({ kind: "team" });

    await deleteDashboardTeamKey(owner.id, teamId);
    expect(await authenticateKey(regenerated.key, "api-key")).toBeNull();
    expect((await dashboardTeams(owner.id))[0]).toMatchObject({ hasKey: false, keyHint: null });
  });

  it("shows the team gallery to members only", async () => {
    const owner = await createTestUser({ plan: "ultra" });
    const member = await createTestUser();
    const stranger = await createTestUser();
    const { teamId } = await createDashboardTeam(owner.id, "Gallery team");
    await addMember(teamId, member.id);
    const teamPost = await createTestPost(owner.id, { teamId, privacy: "private", title: "Team shot" });
    await createTestPost(owner.id, { title: "Personal shot" });

    const gallery = await dashboardTeamGallery(member.id, teamId);
    expect(gallery.posts.map((p) => p.code)).toEqual([teamPost.code]);
    expect(gallery.posts[0].title).toBe("Team shot");
    // Team posts are private: their preview links are signed.
    expect(gallery.posts[0].preview).toMatch(/[?&](sig|signature|expires|token)=|exp/i);
    expect(await domainErrorType(dashboardTeamGallery(stranger.id, teamId))).toBe("not_found");
  });
});

describe("dashboard delete confirmation", () => {
  const testDb = useTestDatabase();

  it("shows the owner what would be deleted and deletes only on confirm", async () => {
    const owner = await createTestUser();
    const other = await createTestUser();
    const post = await createTestPost(owner.id, { privacy: "unlisted", title: "Screenshot", files: 2 });

    const target = await deleteTarget(owner.id, post.code);
    expect(target).toMatchObject({ code: post.code, title: "Screenshot", fileCount: 2, fileNames: post.names });
    // Showing the page changes nothing.
    expect(await testDb().db.post.count({ where: { code: post.code } })).toBe(1);

    expect(await domainErrorType(deleteTarget(other.id, post.code))).toBe("forbidden");
    expect(await domainErrorType(confirmDelete(other.id, post.code))).toBe("forbidden");
    expect(await testDb().db.post.count({ where: { code: post.code } })).toBe(1);

    await confirmDelete(owner.id, post.code);
    expect(await testDb().db.post.count({ where: { code: post.code } })).toBe(0);
    expect(await domainErrorType(deleteTarget(owner.id, post.code))).toBe("not_found");
  });

  it("hides private posts of others as missing", async () => {
    const owner = await createTestUser();
    const other = await createTestUser();
    const post = await createTestPost(owner.id, { privacy: "private" });
    expect(await domainErrorType(deleteTarget(other.id, post.code))).toBe("not_found");
  });
});
