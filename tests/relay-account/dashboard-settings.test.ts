/**
 * The dashboard's own Relay endpoints, hidden from the OpenAPI documents (docs/dashboard-scripts.md):
 * PUT /users/@me/upload-privacy and PUT /posts/{code}/share-password. The dashboard calls them
 * with fetch, so they work on pages served without Next's runtime.
 */
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { checkSharePassword } from "@/lib/posts/share-password";
import { uploadPrivacyOf } from "@/lib/users/upload-privacy";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestPost, createTestUser } from "../support/fixtures";
import { api, relay } from "../support/http";

useTestDatabase();
useCounterStore({ perTest: true });

describe("PUT /users/@me/upload-privacy", () => {
  it("stores the account's choice and null goes back to the operator's default", async () => {
    const user = await createTestUser();
    const set = await relay("/users/@me/upload-privacy", { method: "PUT", key: user.relayKey, body: { privacy: "public" } });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ upload_privacy: { privacy: "public", chosen: true } });
    expect(await uploadPrivacyOf(user.id)).toEqual({ privacy: "public", chosen: true });
    const cleared = await relay("/users/@me/upload-privacy", { method: "PUT", key: user.relayKey, body: { privacy: null } });
    expect(cleared.body.upload_privacy.chosen).toBe(false);
    expect((await uploadPrivacyOf(user.id)).chosen).toBe(false);
  });

  it("refuses another value, a missing field and an app key", async () => {
    const user = await createTestUser();
    for (const body of [{ privacy: "friends" }, {}, { privacy: "public", extra: 1 }]) {
      const reply = await relay("/users/@me/upload-privacy", { method: "PUT", key: user.relayKey, body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
    }
    expect((await api("/users/@me/upload-privacy", { method: "PUT", key: user.apiKey, body: { privacy: "public" } })).status).toBe(404);
    expect((await uploadPrivacyOf(user.id)).chosen).toBe(false);
  });
});

describe("PUT /posts/{code}/share-password", () => {
  it("sets and removes the owner's password", async () => {
    const user = await createTestUser();
    const post = await createTestPost(user.id);
    const path = `/posts/${post.code}/share-password`;
    const set = await relay(path, { method: "PUT", key: user.relayKey, body: { password: "a long password" } });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ password_protected: true });
    const row = await db().post.findUniqueOrThrow({ where: { id: post.id } });
    expect(await checkSharePassword(row, "a long password")).toBe(true);
    const removed = await relay(path, { method: "PUT", key: user.relayKey, body: { password: null } });
    expect(removed.body).toEqual({ password_protected: false });
    expect((await db().post.findUniqueOrThrow({ where: { id: post.id } })).passwordHash).toBeNull();
  });

  it("refuses a short password, someone else's post, and the API surface", async () => {
    const [owner, other] = [await createTestUser(), await createTestUser()];
    const post = await createTestPost(owner.id);
    const path = `/posts/${post.code}/share-password`;
    const short = await relay(path, { method: "PUT", key: owner.relayKey, body: { password: "short" } });
    expect(short.status).toBe(400);
    expect(short.body.error.message).toMatch(/8 to 200/);
    // Another's visible post: 403, as for PATCH /posts/{code}.
    expect((await relay(path, { method: "PUT", key: other.relayKey, body: { password: "a long password" } })).status).toBe(403);
    expect((await api(path, { method: "PUT", key: owner.apiKey, body: { password: "a long password" } })).status).toBe(404);
    expect((await db().post.findUniqueOrThrow({ where: { id: post.id } })).passwordHash).toBeNull();
  });
});
