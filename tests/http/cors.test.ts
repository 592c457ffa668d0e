/**
 * Cross-origin use of the API and Relay (docs/cors.md), through the real dispatcher on every
 * endpoint of the route table: the preflight answers the path's methods and the headers a
 * browser client sends, and every reply (successes, errors raised before a handler runs,
 * 429s) carries `Access-Control-Allow-Origin: *` and exposes request-id and the rate-limit
 * headers. The wire and a real browser: tests/server/cors.test.ts, tests/e2e/cors.spec.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ALL_ROUTES } from "@/lib/routes";
import { BUCKETS } from "@/lib/ratelimit";
import { createDispatcher } from "@/lib/http/dispatch";
import { defineRoute, type RouteDef, type Surface } from "@/lib/http/route";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser, type TestUser } from "../support/fixtures";
import { api, call, relay, type Reply } from "../support/http";

useTestDatabase();
useCounterStore();

const ORIGIN = "https://client.example";
const KEY_HEADER = { api: "api-key", relay: "relay-key" } as const;

const concrete = (route: RouteDef) =>
  route.path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === "name" ? "file.png" : name === "code" ? "abc123" : "@me"));
const cases: [Surface, RouteDef][] = ALL_ROUTES.flatMap((r) => r.surfaces.map((s) => [s, r] as [Surface, RouteDef]));
const label = ([surface, r]: [Surface, RouteDef]) => `${surface} ${r.method} ${r.path}`;
const list = (value: string | null) => (value ?? "").split(",").map((s) => s.trim().toLowerCase());

function expectCors(reply: Reply): void {
  expect(reply.headers.get("access-control-allow-origin"), reply.text).toBe("*");
  // Credentials are never allowed: keys authenticate cross-origin calls, not cookies.
  expect(reply.headers.get("access-control-allow-credentials")).toBeNull();
  const exposed = list(reply.headers.get("access-control-expose-headers"));
  for (const name of ["request-id", "retry-after", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) {
    expect(exposed).toContain(name);
  }
}

let user: TestUser;
beforeAll(async () => {
  user = await createTestUser();
});

describe("CORS preflight", () => {
  it.each(cases.map((c) => [label(c), c] as const))("%s", async (_label, [surface, route]) => {
    const reply = await call(surface, concrete(route), {
      method: "OPTIONS",
      headers: {
        origin: ORIGIN,
        "access-control-request-method": route.method,
        "access-control-request-headers": `${KEY_HEADER[surface]},content-type`,
      },
    });
    expect(reply.status).toBe(204);
    expect(reply.text).toBe("");
    expectCors(reply);
    const methods = list(reply.headers.get("access-control-allow-methods"));
    expect(methods).toContain(route.method.toLowerCase());
    expect(reply.headers.get("access-control-allow-methods")).toBe(reply.headers.get("allow"));
    const allowed = list(reply.headers.get("access-control-allow-headers"));
    for (const name of [KEY_HEADER[surface], "content-type"]) expect(allowed).toContain(name);
    // Every header the route declares (and so documents) a browser may send.
    for (const name of Object.keys(route.headers ?? {})) expect(allowed).toContain(name);
    expect(Number(reply.headers.get("access-control-max-age"))).toBeGreaterThan(0);
  });

  it("allows the upload and convert headers of the interface", async () => {
    const reply = await api("/upload", { method: "OPTIONS", headers: { origin: ORIGIN, "access-control-request-method": "POST" } });
    const allowed = list(reply.headers.get("access-control-allow-headers"));
    for (const name of ["post-privacy", "include-metadata", "post-type", "priority", "convert-target"]) expect(allowed).toContain(name);
  });

  it("allows exactly the key headers, content-type and the headers routes declare: one list, the table's", async () => {
    const declared = ALL_ROUTES.flatMap((r) => Object.keys(r.headers ?? {}));
    const reply = await api("/upload", { method: "OPTIONS", headers: { origin: ORIGIN, "access-control-request-method": "POST" } });
    const allowed = list(reply.headers.get("access-control-allow-headers"));
    expect(new Set(allowed)).toEqual(new Set(["api-key", "relay-key", "content-type", ...declared]));
    expect(allowed).toHaveLength(new Set(allowed).size);
  });

  it("a header a route starts declaring is allowed by the preflight with no other edit", async () => {
    const reads = defineRoute({
      id: "readsHeader",
      method: "GET",
      path: "/reads-header",
      surfaces: ["api"],
      summary: "Reads a header",
      auth: "none",
      headers: { "x-new-header": { description: "A header only this route reads." } },
      handler: async () => new Response(null, { status: 204 }),
    });
    const dispatch = createDispatcher([reads], "api", "/api");
    const reply = await dispatch(new Request("http://localhost/api/reads-header", { method: "OPTIONS", headers: { origin: ORIGIN } }));
    expect(reply.status).toBe(204);
    expect(list(reply.headers.get("access-control-allow-headers"))).toEqual(["api-key", "relay-key", "content-type", "x-new-header"]);
  });

  it("an unknown path: 404 error, still readable cross-origin", async () => {
    const reply = await api("/no-such-endpoint", {
      method: "OPTIONS",
      headers: { origin: ORIGIN, "access-control-request-method": "GET" },
    });
    expect(reply.status).toBe(404);
    expect(reply.body.error.type).toBe("not_found");
    expectCors(reply);
  });
});

describe("CORS on actual requests", () => {
  it.each(cases.map((c) => [label(c), c] as const))("%s without a key: its error carries CORS", async (_label, [surface, route]) => {
    const reply = await call(surface, concrete(route), { method: route.method, headers: { origin: ORIGIN } });
    expectCors(reply);
  });

  it("a keyed read: 200 with CORS and the rate-limit headers", async () => {
    const reply = await api("/posts", { key: user.apiKey, headers: { origin: ORIGIN } });
    expect(reply.status).toBe(200);
    expectCors(reply);
    expect(reply.headers.get("x-ratelimit-limit")).not.toBeNull();
    const onRelay = await relay("/users/@me", { key: user.relayKey, headers: { origin: ORIGIN } });
    expect(onRelay.status).toBe(200);
    expectCors(onRelay);
  });

  it("errors before a handler: 401, 404, 405, 400 and 429 carry CORS", async () => {
    const unknownKey = await api("/users/@me", { key: "nope", headers: { origin: ORIGIN } });
    expect(unknownKey.status).toBe(401);
    expectCors(unknownKey);
    const missing = await api("/nothing/here", { headers: { origin: ORIGIN } });
    expect(missing.status).toBe(404);
    expectCors(missing);
    const wrongMethod = await api("/upload", { method: "PUT", headers: { origin: ORIGIN } });
    expect(wrongMethod.status).toBe(405);
    expectCors(wrongMethod);
    const badQuery = await api("/posts?limit=nope", { key: user.apiKey, headers: { origin: ORIGIN } });
    expect(badQuery.status).toBe(400);
    expectCors(badQuery);

    const limited = await createTestUser();
    let last: Reply | undefined;
    for (let i = 0; i <= BUCKETS.posts_get.limit; i++)
      last = await api("/posts/abc123", { key: limited.apiKey, headers: { origin: ORIGIN } });
    expect(last?.status).toBe(429);
    expectCors(last!);
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });
});
