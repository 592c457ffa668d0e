/**
 * The fast lane writes the dispatcher's replies to the socket itself (lib/server/fast-lane.ts),
 * not through Web Responses: the rules of interface.md that live in that reply must hold on
 * the wire of the real server too: the JSON error object with `request-id`, 404, 405 with
 * `Allow`, OPTIONS, HEAD without a body, Content-Length, rate-limit headers and 429 with
 * `Retry-After`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startTestServer, type TestServer } from "../support/server";
import { serverUser, serverApp } from "../support/server-accounts";

describe("fast-lane replies on the production server", () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    const port = await freePort();
    server = await startTestServer({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
    await serverUser(server, "lane_user");
    key = (await serverApp(server, "lane_user", "Lane", { galleryAccess: true })).key as string;
  }, 180_000);
  afterAll(async () => {
    if (server) await server.stop();
  });

  const call = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, init);

  it("unknown endpoints: 404 JSON error with request-id and an exact Content-Length", async () => {
    const res = await call("/api/no-such-endpoint");
    const text = await res.text();
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("request-id")).toMatch(/^[0-9a-f]{32}$/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Number(res.headers.get("content-length"))).toBe(Buffer.byteLength(text));
    expect(JSON.parse(text).error.type).toBe("not_found");
  });

  it("a wrong method: 405 with Allow; OPTIONS: 204 with Allow", async () => {
    const wrong = await call("/api/upload", { method: "DELETE" });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toContain("POST");
    expect((await wrong.json()).error.type).toBe("method_not_allowed");

    const options = await call("/api/upload", { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toContain("POST");
    expect(await options.text()).toBe("");
  });

  it("HEAD answers the headers of GET without a body", async () => {
    const head = await call("/api/openapi.json", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("request-id")).toMatch(/^[0-9a-f]{32}$/);
    expect(await head.text()).toBe("");
  });

  it("a missing key is 401 JSON; a known one is served with rate-limit headers, then 429 with Retry-After", async () => {
    const anonymous = await call("/api/posts/AAAAAAAAAA");
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error.type).toBe("unauthorized");

    const first = await call("/api/posts/AAAAAAAAAA", { headers: { "api-key": key } });
    expect(first.status).toBe(404);
    const limit = Number(first.headers.get("x-ratelimit-limit"));
    expect(limit).toBeGreaterThan(0);
    expect(Number(first.headers.get("x-ratelimit-remaining"))).toBe(limit - 1);
    expect(Number(first.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    let last = first;
    for (let i = 1; i <= limit; i++) last = await call("/api/posts/AAAAAAAAAA", { headers: { "api-key": key } });
    expect(last.status).toBe(429);
    expect(Number(last.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(last.headers.get("x-ratelimit-remaining")).toBe("0");
    expect((await last.json()).error.type).toBe("rate_limited");
  });
});
