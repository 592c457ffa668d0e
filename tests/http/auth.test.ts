/** Authentication and the account/team state rules of interface.md (Authentication, States). */
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestTeam, createTestUser, type TestUser } from "../support/fixtures";
import { api, relay } from "../support/http";

useTestDatabase();
useCounterStore();

let alice: TestUser;
beforeAll(async () => {
  alice = await createTestUser({ plan: "ultra" });
});

describe("keys", () => {
  it("401 for a missing, empty, unknown or malformed key", async () => {
    for (const key of [undefined, " ", `mha_${"x".repeat(43)}`, "not a key", "{}|%y"]) {
      const reply = await api("/users/@me", { headers: key === undefined ? {} : { "api-key": key } });
      expect(reply.status, String(key)).toBe(401);
      expect(reply.body.error.type).toBe("unauthorized");
    }
  });

  it("accepts each key only in its own header", async () => {
    expect((await api("/users/@me", { key: alice.apiKey })).status).toBe(200);
    expect((await relay("/users/@me", { key: alice.relayKey })).status).toBe(200);
    expect((await api("/users/@me", { key: alice.relayKey })).status).toBe(401);
    expect((await relay("/users/@me", { key: alice.apiKey })).status).toBe(401);
  });

  it("a revoked app key stops working at once", async () => {
    const bob = await createTestUser();
    await db().app.updateMany({ where: { userId: bob.id, galleryAccess: true }, data: { keyHash: null, revokedAt: new Date() } });
    expect((await api("/users/@me", { key: bob.apiKey })).status).toBe(401);
    expect((await api("/users/@me", { key: bob.uploadOnlyKey })).status).toBe(200);
  });

  it("a deleted Relay session's key stops working at once", async () => {
    const carol = await createTestUser();
    await db().relaySession.deleteMany({ where: { userId: carol.id } });
    expect((await relay("/users/@me", { key: carol.relayKey })).status).toBe(401);
  });
});

describe("gallery access", () => {
  it("is reported by key_has_uploads_access", async () => {
    expect((await api("/users/@me", { key: alice.apiKey })).body.key_has_uploads_access).toBe(true);
    expect((await api("/users/@me", { key: alice.uploadOnlyKey })).body.key_has_uploads_access).toBe(false);
    expect((await relay("/users/@me", { key: alice.relayKey })).body.key_has_uploads_access).toBe(true);
  });

  it("without it the gallery endpoints are 403 forbidden and upload is not", async () => {
    const key = alice.uploadOnlyKey;
    for (const [method, path] of [
      ["GET", "/posts"],
      ["PATCH", "/posts/abc"],
      ["DELETE", "/posts/abc"],
      ["POST", "/posts/abc/files"],
      ["DELETE", "/posts/abc/files/a.png"],
    ]) {
      const reply = await api(path, { method, key });
      expect(reply.status, `${method} ${path}`).toBe(403);
      expect(reply.body.error.type).toBe("forbidden");
    }
    expect((await api("/upload", { method: "POST", key })).status).not.toBe(403);
  });
});

describe("suspension", () => {
  it("a suspended account gets 403 suspended on every endpoint", async () => {
    const dave = await createTestUser({ suspended: true });
    for (const [method, path] of [
      ["GET", "/users/@me"],
      ["POST", "/upload"],
      ["GET", "/posts"],
      ["GET", "/usage-history"],
    ]) {
      const reply = await api(path, { method, key: dave.apiKey });
      expect(reply.status, `${method} ${path}`).toBe(403);
      expect(reply.body.error.type).toBe("suspended");
    }
    expect((await relay("/discover", { key: dave.relayKey })).body.error.type).toBe("suspended");
  });
});

describe("team keys", () => {
  it("lapsed: upload, add-files and convert are 403 forbidden; edit and delete are not", async () => {
    const owner = await createTestUser({ plan: "ultra" });
    const team = await createTestTeam(owner.id, "lapsed");
    for (const path of ["/upload", "/posts/abc/files", "/convert"]) {
      const reply = await api(path, { method: "POST", key: team.key });
      expect(reply.status, path).toBe(403);
      expect(reply.body.error.type).toBe("forbidden");
    }
    for (const [method, path] of [
      ["PATCH", "/posts/abc"],
      ["DELETE", "/posts/abc"],
      ["DELETE", "/posts/abc/files/a.png"],
    ]) {
      const reply = await api(path, { method, key: team.key, body: method === "PATCH" ? {} : undefined });
      expect(reply.status, `${method} ${path}`).not.toBe(403);
    }
  });

  it("a suspended owner makes the team key 403 suspended on every endpoint, also where team keys are 401", async () => {
    const owner = await createTestUser({ plan: "ultra" });
    const team = await createTestTeam(owner.id);
    await db().user.update({ where: { id: owner.id }, data: { suspended: true } });
    for (const [method, path] of [
      ["POST", "/upload"],
      ["PATCH", "/posts/abc"],
      ["DELETE", "/posts/abc"],
      ["POST", "/convert"],
      ["GET", "/users/@me"],
      ["GET", "/posts"],
      ["GET", "/usage-history"],
    ]) {
      const reply = await api(path, { method, key: team.key });
      expect(reply.status, `${method} ${path}`).toBe(403);
      expect(reply.body.error.type).toBe("suspended");
    }
  });

  it("are refused by the route's declaration where only personal keys are declared, with the same 401 everywhere", async () => {
    // These handlers once checked the key kind by hand (issue 31 §4); the dispatcher's refusal is the one answer.
    const team = await createTestTeam(alice.id);
    const calls: [typeof api, string][] = [
      [api, "/users/@me"],
      [api, "/usage-history"],
      [api, "/analytics"],
      [relay, "/preferences"],
      [relay, "/sessions"],
      [relay, "/auth/two-factor"],
      [relay, "/auth/passkeys"],
    ];
    for (const [surface, path] of calls) {
      const reply = await surface(path, { key: team.key });
      expect(reply.status, path).toBe(401);
      expect(reply.body.error, path).toMatchObject({ type: "unauthorized", message: "Team keys cannot be used on this endpoint." });
    }
  });

  it("are 401 on GET /users/@me, GET /posts and GET /posts/{code}", async () => {
    const team = await createTestTeam(alice.id);
    for (const path of ["/users/@me", "/posts", "/posts/abc"]) {
      expect((await api(path, { key: team.key })).status, path).toBe(401);
    }
  });
});
