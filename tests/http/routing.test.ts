/**
 * The rules that come from the route table and the dispatcher, tried against every
 * registered endpoint: JSON 404/405 with Allow, request-id, the error shape, key kinds.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ALL_ROUTES } from "@/lib/routes";
import type { RouteDef, Surface } from "@/lib/http/route";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestTeam, createTestUser, type TestUser } from "../support/fixtures";
import { call, type Reply } from "../support/http";

useTestDatabase();
useCounterStore();

/** A concrete path for a route pattern. */
const concrete = (route: RouteDef) =>
  route.path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === "name" ? "file.png" : name === "code" ? "abc123" : "@me"));

const cases: [Surface, RouteDef][] = ALL_ROUTES.flatMap((r) => r.surfaces.map((s) => [s, r] as [Surface, RouteDef]));
const label = ([surface, r]: [Surface, RouteDef]) => `${surface} ${r.method} ${r.path}`;

function expectError(reply: Reply, status: number, type: string) {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
  expect(reply.body.error.type).toBe(type);
  expect(typeof reply.body.error.message).toBe("string");
  expect(reply.headers.get("request-id")).toBeTruthy();
}

let user: TestUser;
let team: { id: string; key: string };
beforeAll(async () => {
  user = await createTestUser({ plan: "ultra" });
  team = await createTestTeam(user.id);
});

describe("every registered endpoint", () => {
  it("is registered for every endpoint of interface.md", () => {
    const api = new Set(ALL_ROUTES.filter((r) => r.surfaces.includes("api")).map((r) => `${r.method} ${r.path}`));
    for (const e of [
      "POST /upload",
      "GET /posts",
      "GET /posts/{code}",
      "PATCH /posts/{code}",
      "DELETE /posts/{code}",
      "POST /posts/{code}/files",
      "DELETE /posts/{code}/files/{name}",
      "POST /convert",
      "GET /gifs",
      "GET /users/{id}",
      "GET /users/{id}/posts",
      "GET /usage-history",
      "POST /posts/{code}/report",
      "POST /users/{id}/report",
      "GET /analytics",
    ])
      expect(api, e).toContain(e);
    const relay = new Set(ALL_ROUTES.filter((r) => r.surfaces.includes("relay")).map((r) => `${r.method} ${r.path}`));
    for (const e of [
      "GET /discover",
      "PATCH /users/@me",
      "POST /users/@me/avatar",
      "DELETE /users/@me/avatar",
      "POST /users/@me/banner",
      "DELETE /users/@me/banner",
      "POST /users/{id}/follow",
      "DELETE /users/{id}/follow",
      "DELETE /users/@me/followers/{id}",
      "GET /users/{id}/followers",
      "GET /users/{id}/following",
      "POST /users/{id}/block",
      "DELETE /users/{id}/block",
      "GET /users/{id}/blocks",
      "POST /posts/{code}/like",
      "DELETE /posts/{code}/like",
      "GET /posts/{code}/comments",
      "POST /posts/{code}/comments",
      "DELETE /comments/{id}",
      "POST /comments/{id}/like",
      "DELETE /comments/{id}/like",
      "POST /comments/{id}/report",
      "GET /notifications",
      "GET /notifications/unread-count",
      "GET /preferences",
      "PATCH /preferences",
      "GET /sessions",
      "DELETE /sessions/{id}",
      "DELETE /sessions",
      "GET /upload".replace("GET /upload", "POST /upload"),
    ])
      expect(relay, e).toContain(e);
  });

  it.each(cases.map((c) => [label(c), ...c] as const))("%s: 401 JSON without a key (unless open)", async (_l, surface, route) => {
    const reply = await call(surface, concrete(route), { method: route.method });
    if (route.auth === "none" || route.auth === "optional") {
      expect(reply.status).not.toBe(401);
    } else if (route.method === "HEAD") {
      // A HEAD reply has no body (tus's HEAD /tus/{id}): the status and headers say it.
      expect(reply.status).toBe(401);
      expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
      expect(reply.headers.get("request-id")).toBeTruthy();
    } else {
      expectError(reply, 401, "unauthorized");
    }
  });

  it.each(cases.map((c) => [label(c), ...c] as const))("%s: 405 with Allow for a wrong method", async (_l, surface, route) => {
    const wrong = ["PUT", "PATCH", "POST", "DELETE"].find(
      (m) => !ALL_ROUTES.some((r) => r.surfaces.includes(surface) && r.method === m && r.path === route.path),
    )!;
    const reply = await call(surface, concrete(route), { method: wrong, key: user.apiKey });
    // Another pattern may serve the concrete path with that method (PATCH /users/@me on Relay).
    if (reply.status === 405) {
      expectError(reply, 405, "method_not_allowed");
      expect(reply.headers.get("allow")).toContain(route.method);
    } else {
      expect(ALL_ROUTES.some((r) => r.surfaces.includes(surface) && r.method === wrong)).toBe(true);
    }
  });

  it.each(cases.map((c) => [label(c), ...c] as const))("%s: team keys only where the spec allows", async (_l, surface, route) => {
    const reply = await call(surface, concrete(route), { method: route.method, key: team.key, body: route.body ? {} : undefined });
    // "Every other endpoint ... returns 401" for team keys: open endpoints included.
    if ((route.keys ?? ["personal"]).includes("team") || route.auth === "none") {
      expect(reply.status).not.toBe(401);
    } else {
      expectError(reply, 401, "unauthorized");
    }
  });
});

describe("dispatcher", () => {
  it("answers unknown paths with JSON 404 on both surfaces", async () => {
    for (const surface of ["api", "relay"] as const) {
      expectError(await call(surface, "/nope"), 404, "not_found");
      expectError(await call(surface, "/posts/abc/nope/deeper"), 404, "not_found");
      expectError(await call(surface, ""), 404, "not_found");
    }
    // Relay-only endpoints do not exist on the API.
    expectError(await call("api", "/discover", { key: user.apiKey }), 404, "not_found");
  });

  it("gives every response a fresh request-id, ignoring one the client sent", async () => {
    const a = await call("api", "/users/@me", { key: user.apiKey });
    const b = await call("api", "/nope");
    expect(a.headers.get("request-id")).toMatch(/^[A-Za-z0-9_-]{8,}$/);
    expect(a.headers.get("request-id")).not.toBe(b.headers.get("request-id"));
  });

  it("lists methods for OPTIONS and serves HEAD like GET without a body", async () => {
    const options = await call("relay", "/users/@me", { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, HEAD, PATCH, OPTIONS");
    const head = await call("api", "/users/@me", { method: "HEAD", key: user.apiKey });
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
  });

  it("tolerates a trailing slash", async () => {
    const reply = await call("api", "/users/@me/", { key: user.apiKey });
    expect(reply.status).toBe(200);
  });

  const reportAs = async (init: Omit<Parameters<typeof call>[2] & object, "key" | "method">) =>
    call("api", "/posts/abc123/report", { ...init, method: "POST", key: (await createTestUser()).apiKey });

  it("refuses an unparsable JSON body with invalid_request", async () => {
    const reply = await reportAs({ rawBody: "{not json", headers: { "content-type": "application/json" } });
    expectError(reply, 400, "invalid_request");
  });

  it("refuses a JSON body over 1 MB with file_too_large before reading it all", async () => {
    const reply = await reportAs({ rawBody: JSON.stringify({ reason: "x".repeat(2 * 1024 * 1024) }) });
    expectError(reply, 413, "file_too_large");
  });

  it("rejects over-long text instead of truncating it", async () => {
    const reply = await reportAs({ body: { reason: "é".repeat(201) } });
    expectError(reply, 400, "invalid_request");
    expect(reply.body.error.message).toMatch(/200/);
  });

  it("never puts error, message or success keys on a 2xx", async () => {
    const reply = await call("api", "/users/@me", { key: user.apiKey });
    expect(reply.status).toBe(200);
    for (const k of ["error", "message", "success", "ok"]) expect(reply.body).not.toHaveProperty(k);
  });
});

describe("empty path segments", () => {
  it("an empty code or id is 400 invalid_request, not another endpoint", async () => {
    const fresh = await createTestUser();
    for (const path of ["/posts//report", "/users//report"]) {
      const reply = await call("api", path, { method: "POST", key: fresh.apiKey, body: {} });
      expect(reply.status, path).toBe(400);
      expect(reply.body.error.type).toBe("invalid_request");
    }
    expect((await call("api", "/posts/", { key: fresh.apiKey })).status).toBe(200);
  });
});
