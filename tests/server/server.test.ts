/**
 * The production build behind the custom server (lib/server/server.ts): request ids on
 * every kind of response, the 404 page, metadata in <head> for every crawler.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server";

const REQUEST_ID = /^[0-9a-f]{32}$/;

describe("server", () => {
  let server: TestServer;
  beforeAll(async () => {
    // Started as in a container: HOST unset, and HOSTNAME the machine's name (Docker sets
    // it to the container id). The server must bind all interfaces, not that name.
    server = await startTestServer({ HOST: "", HOSTNAME: "container-3f2a9c1b" });
  });
  afterAll(async () => {
    // A clean SIGTERM shutdown exits 0. (No server when beforeAll failed: that error is the report.)
    if (server) expect(await server.stop()).toBe(0);
  });

  const get = (path: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(new URL(path, server.url), { headers, redirect: "manual" });

  it("serves the landing page with a request id", async () => {
    const res = await get("/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("request-id")).toMatch(REQUEST_ID);
    expect(res.headers.get("x-powered-by")).toBeNull();
    const html = await res.text();
    expect(html).toContain('<html lang="en"');
    expect(html).toContain("Mediahost");
    expect(html).toContain('href="/signin"');
    expect(html).toContain('href="/discover"');
  });

  it("gives every request its own id", async () => {
    const [a, b] = await Promise.all([get("/"), get("/")]);
    const ids = [a.headers.get("request-id"), b.headers.get("request-id")];
    expect(ids[0]).toMatch(REQUEST_ID);
    expect(ids[1]).toMatch(REQUEST_ID);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it("replaces a request id sent by the client", async () => {
    const res = await get("/", { "request-id": "forged-by-client" });
    expect(res.headers.get("request-id")).toMatch(REQUEST_ID);
  });

  it("answers unknown pages with the 404 page and a request id", async () => {
    const res = await get("/nope");
    expect(res.status).toBe(404);
    expect(res.headers.get("request-id")).toMatch(REQUEST_ID);
    expect(await res.text()).toContain("Page not found");
  });

  it("keeps the request id on static files and route handlers", async () => {
    const html = await (await get("/")).text();
    const asset = /\/_next\/static\/[^"]+\.(?:js|css)/.exec(html)?.[0];
    expect(asset).toBeDefined();
    for (const path of [asset!, "/robots.txt", "/healthz"]) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("request-id"), path).toMatch(REQUEST_ID);
    }
    // `detail` names features that are off (test servers run with OCR=off: docs/ocr.md).
    expect(await (await get("/healthz")).json()).toEqual({ status: "ok", detail: { text_reading: "off (turned off by the operator)" } });
  });

  it("never redirects trailing slashes (the API router answers them itself)", async () => {
    const res = await get("/healthz/");
    expect(res.status).not.toBe(308);
    expect(res.headers.get("request-id")).toMatch(REQUEST_ID);
  });

  it("puts metadata in <head> for crawlers outside Next's default bot list", async () => {
    for (const agent of ["Mastodon/4.3.0 (http.rb/5.2.0; +https://example.social/)", "Discordbot/2.0", "Mozilla/5.0 Firefox/140.0"]) {
      const html = await (await get("/", { "user-agent": agent })).text();
      const head = html.slice(0, html.indexOf("</head>"));
      expect(head, agent).toContain("<title>Mediahost</title>");
      expect(head, agent).toContain('property="og:site_name"');
    }
  });
});
