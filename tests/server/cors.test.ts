/**
 * CORS on the wire of the production server (docs/cors.md): the fast lane writes what the
 * dispatcher answers, so the preflight and the CORS headers of successes and errors must
 * reach the socket as they are. Every route of the table is tried in-process in
 * tests/http/cors.test.ts; a real browser on a second origin in tests/e2e/cors.spec.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startTestServer, type TestServer } from "../support/server";
import { serverUser, serverApp } from "../support/server-accounts";

const ORIGIN = "https://client.example";

describe("CORS on the production server", () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    const port = await freePort();
    server = await startTestServer({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
    await serverUser(server, "cors_user");
    key = (await serverApp(server, "cors_user", "Cors", { galleryAccess: true })).key as string;
  }, 180_000);
  afterAll(async () => {
    if (server) await server.stop();
  });

  const call = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
    fetch(`${server.url}${path}`, { ...init, headers: { origin: ORIGIN, ...init.headers } });
  const exposed = (res: Response) => (res.headers.get("access-control-expose-headers") ?? "").split(/,\s*/);

  it("preflight: 204 with the methods, the key header and max-age, on both surfaces", async () => {
    for (const [path, header] of [
      ["/api/posts/abc123", "api-key"],
      ["/relay/posts/abc123", "relay-key"],
    ] as const) {
      const res = await call(path, {
        method: "OPTIONS",
        headers: { "access-control-request-method": "PATCH", "access-control-request-headers": `${header}, content-type` },
      });
      expect(res.status, path).toBe(204);
      expect(await res.text()).toBe("");
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-allow-methods")).toBe("GET, HEAD, PATCH, DELETE, OPTIONS");
      expect(res.headers.get("access-control-allow-headers")).toContain(header);
      expect(res.headers.get("access-control-allow-headers")).toContain("content-type");
      expect(Number(res.headers.get("access-control-max-age"))).toBeGreaterThan(0);
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    }
  });

  it("an actual request: the reply is open to any origin and exposes request-id and the rate-limit headers", async () => {
    const res = await call("/api/posts", { headers: { "api-key": key } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    for (const name of ["request-id", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after"])
      expect(exposed(res)).toContain(name);
  });

  it("errors carry CORS too: 401, 404, 405", async () => {
    for (const [path, method, status] of [
      ["/api/posts", "GET", 401],
      ["/relay/no-such-endpoint", "GET", 404],
      ["/api/upload", "PUT", 405],
    ] as const) {
      const res = await call(path, { method });
      expect(res.status, path).toBe(status);
      expect(res.headers.get("access-control-allow-origin"), path).toBe("*");
      expect(exposed(res)).toContain("request-id");
      expect(((await res.json()) as { error: { type: string } }).error.type).toBeTruthy();
    }
  });
});
