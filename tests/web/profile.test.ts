/**
 * Public profiles (/u/{username}, lib/web/profile.ts) on a real database: the same reads
 * as Relay's GET /users/{id} and GET /users/{id}/posts, so only public posts show, a
 * suspended user shows nothing, and the viewer's follow, block and like states are theirs.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { blockUser } from "@/lib/social/blocks";
import { followUser } from "@/lib/social/follows";
import { likePost } from "@/lib/social/likes";
import { loadProfilePage, PROFILE_PAGE_SIZE, profileUrl } from "@/lib/web/profile";
import { useTestDatabase } from "../support/db";
import { createTestPost, createTestTeam, createTestUser, type TestUser } from "../support/fixtures";

useTestDatabase();

let owner: TestUser;
let visitor: TestUser;
const publicCodes: string[] = [];

beforeAll(async () => {
  owner = await createTestUser();
  visitor = await createTestUser();
  const base = Date.now() - 1_000_000;
  // Oldest first, one second apart, so "newest first" has one answer.
  for (let i = 0; i < PROFILE_PAGE_SIZE + 2; i++) {
    const { code } = await createTestPost(owner.id, { createdAt: new Date(base + i * 1000) });
    publicCodes.unshift(code);
  }
  const team = await createTestTeam(owner.id);
  for (const options of [
    { privacy: "unlisted" },
    { privacy: "private" },
    { moderated: true },
    { draft: true },
    { teamId: team.id },
  ] as const) {
    await createTestPost(owner.id, { ...options, createdAt: new Date(base + 999_000) });
  }
});

describe("loadProfilePage", () => {
  it("shows the profile and only public posts, newest first, paged with the API's cursor", async () => {
    const first = await loadProfilePage(null, owner.username.toUpperCase(), undefined);
    if (first.kind !== "profile") throw new Error(`expected a profile, got ${first.kind}`);
    expect(first.user).toMatchObject({ id: owner.id, username: owner.username, following: false, blocking: false });
    expect(first.self).toBe(false);
    expect(first.posts.map((p) => p.code)).toEqual(publicCodes.slice(0, PROFILE_PAGE_SIZE));
    expect(first.nextCursor).toEqual(expect.any(String));

    const second = await loadProfilePage(null, owner.username, first.nextCursor ?? undefined);
    if (second.kind !== "profile") throw new Error(second.kind);
    expect(second.posts.map((p) => p.code)).toEqual(publicCodes.slice(PROFILE_PAGE_SIZE));
    expect(second.nextCursor).toBeNull();
  });

  it("ignores a cursor that is not one of its own (first page)", async () => {
    const page = await loadProfilePage(null, owner.username, "not-a-cursor");
    if (page.kind !== "profile") throw new Error(page.kind);
    expect(page.posts[0].code).toBe(publicCodes[0]);
  });

  it("answers the viewer's own follow, block and like states, and self for the owner", async () => {
    await followUser(visitor.id, owner.id);
    await likePost(visitor.id, publicCodes[0]);
    const seen = await loadProfilePage(visitor.id, owner.username, undefined);
    if (seen.kind !== "profile") throw new Error(seen.kind);
    expect(seen.user).toMatchObject({ following: true, blocking: false });
    expect(seen.user.follower_count).toBeGreaterThanOrEqual(1);
    expect(seen.posts[0].liked).toBe(true);
    expect(seen.posts[1].liked).toBe(false);

    const own = await loadProfilePage(owner.id, owner.username, undefined);
    if (own.kind !== "profile") throw new Error(own.kind);
    expect(own.self).toBe(true);

    const blocker = await createTestUser();
    await blockUser(blocker.id, owner.id);
    const blocked = await loadProfilePage(blocker.id, owner.username, undefined);
    if (blocked.kind !== "profile") throw new Error(blocked.kind);
    expect(blocked.user.blocking).toBe(true);
  });

  it("shows a suspended user's name and nothing else, and not_found for nobody", async () => {
    const suspended = await createTestUser({ suspended: true });
    await createTestPost(suspended.id);
    expect(await loadProfilePage(visitor.id, suspended.username, undefined)).toEqual({ kind: "suspended", username: suspended.username });
    expect(await loadProfilePage(null, "nobody-by-this-name", undefined)).toEqual({ kind: "not_found" });
  });

  it("links to /u/{username} on PUBLIC_URL", () => {
    expect(profileUrl("Ann")).toBe(`${env().PUBLIC_URL}/u/Ann`);
  });
});

it("counts come from the user row as on Relay", async () => {
  await db().user.update({ where: { id: owner.id }, data: { uploadCount: 31 } });
  const page = await loadProfilePage(null, owner.username, undefined);
  if (page.kind !== "profile") throw new Error(page.kind);
  expect(page.user.upload_count).toBe(31);
});
