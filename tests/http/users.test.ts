/** GET /users/@me and GET /users/{id}: the whole path from key to profile JSON. */
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { planLimits } from "@/lib/plans";
import { weekWindow, userSubject } from "@/lib/usage/window";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser, type TestUser } from "../support/fixtures";
import { api, relay } from "../support/http";

useTestDatabase();
useCounterStore();

let alice: TestUser;
let bob: TestUser;
beforeAll(async () => {
  alice = await createTestUser({ plan: "plus", username: `Alice_${Date.now().toString(36)}` });
  bob = await createTestUser();
});

const USER_REF = ["id", "username", "nickname", "avatar", "verified", "plan"];
const PROFILE = [...USER_REF, "follower_count", "following_count", "following", "blocking", "upload_count", "created_at"];
const BADGES = ["verified", "staff", "partner", "translator", "bug_hunter_tier"];

describe("GET /users/@me", () => {
  it("returns the own account with plan, key_has_uploads_access and limits", async () => {
    const reply = await api("/users/@me", { key: alice.apiKey });
    expect(reply.status).toBe(200);
    const me = reply.body;
    for (const field of [...PROFILE, ...BADGES, "key_has_uploads_access", "limits"]) expect(me).toHaveProperty(field);
    expect(me.id).toBe(alice.id);
    expect(me.username).toBe(alice.username);
    expect(me.plan).toBe("plus");
    expect(me.avatar).toMatch(/^https?:\/\//);
    expect(new Date(me.created_at).toISOString()).toBe(me.created_at);
    for (const entry of Object.values(me.limits) as { resets_at: string }[]) {
      expect(Date.parse(entry.resets_at)).toBeGreaterThan(Date.now());
    }
    expect(me.limits.usage).toEqual({
      quota: planLimits("plus").weeklyQuotaBytes,
      used: 0,
      remaining: planLimits("plus").weeklyQuotaBytes,
      resets_at: weekWindow().end.toISOString(),
    });
    // No legacy keys.
    for (const legacy of ["plus", "ultra", "badges", "uploads", "created", "is_you", "suspended_flag"])
      expect(me).not.toHaveProperty(legacy);
  });

  it("shows the weekly usage and a quota override", async () => {
    const user = await createTestUser();
    await db().user.update({ where: { id: user.id }, data: { quotaOverride: 1000n } });
    await db().usageWindow.create({ data: { subject: userSubject(user.id), windowStart: weekWindow().start, bytes: 400n } });
    // Last week's usage does not count.
    await db().usageWindow.create({
      data: { subject: userSubject(user.id), windowStart: new Date(weekWindow().start.getTime() - 7 * 86_400_000), bytes: 999n },
    });
    const { body } = await api("/users/@me", { key: user.apiKey });
    expect(body.limits.usage).toMatchObject({ quota: 1000, used: 400, remaining: 600 });
  });

  it("works on Relay, and @me equals the caller's own id", async () => {
    const viaRelay = await relay("/users/@me", { key: alice.relayKey });
    expect(viaRelay.status).toBe(200);
    const byId = await api(`/users/${alice.id}`, { key: alice.apiKey });
    expect(byId.body.id).toBe(alice.id);
    expect(byId.body).toHaveProperty("limits");
  });
});

describe("GET /users/{id}", () => {
  it("returns another user's profile without private fields", async () => {
    const reply = await api(`/users/${bob.id}`, { key: alice.apiKey });
    expect(reply.status).toBe(200);
    for (const field of PROFILE) expect(reply.body).toHaveProperty(field);
    for (const hidden of ["limits", "email", "key_has_uploads_access", "theme"]) expect(reply.body).not.toHaveProperty(hidden);
    expect(reply.body.following).toBe(false);
    expect(reply.body.blocking).toBe(false);
  });

  it("reflects following and blocking of the caller", async () => {
    await db().follow.create({ data: { followerId: alice.id, followingId: bob.id } });
    await db().block.create({ data: { blockerId: alice.id, blockedId: bob.id } });
    const { body } = await api(`/users/${bob.id}`, { key: alice.apiKey });
    expect(body.following).toBe(true);
    expect(body.blocking).toBe(true);
    const reverse = await api(`/users/${alice.id}`, { key: bob.apiKey });
    expect(reverse.body.following).toBe(false);
  });

  it("404 not_found for an unknown user", async () => {
    const reply = await api("/users/nobody-here", { key: alice.apiKey });
    expect(reply.status).toBe(404);
    expect(reply.body.error.type).toBe("not_found");
  });

  it("403 suspended with the username inside error for a suspended user", async () => {
    const eve = await createTestUser({ suspended: true, username: `Eve_${Date.now().toString(36)}` });
    const reply = await api(`/users/${eve.id}`, { key: alice.apiKey });
    expect(reply.status).toBe(403);
    expect(reply.body.error.type).toBe("suspended");
    expect(reply.body.error.username).toBe(eve.username);
    expect(reply.body).not.toHaveProperty("username");
  });

  it("400 for an id that cannot be one", async () => {
    const reply = await api(`/users/${encodeURIComponent("a b")}`, { key: alice.apiKey });
    expect(reply.status).toBe(400);
    expect(reply.body.error.type).toBe("invalid_request");
  });
});
