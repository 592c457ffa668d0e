/**
 * A browser client on another origin (docs/cors.md): a page served from a second port calls
 * the API and Relay with its keys. Chromium runs the real preflight (`api-key`,
 * `relay-key`, JSON and custom upload headers are not CORS-safelisted) and lets the page
 * read the replies, their errors and the exposed headers; a credentialed call is refused.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { baseUrl, createUser, type E2EUser } from "./support";

let other: Server;
let otherOrigin: string;
let user: E2EUser;

test.beforeAll(async () => {
  user = await createUser();
  // The second origin: another port on localhost (a different host name from the server's
  // 127.0.0.1 as well), serving one empty page.
  other = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>Other origin</title><p>client</p>");
  });
  await new Promise<void>((done) => other.listen(0, "127.0.0.1", done));
  otherOrigin = `http://localhost:${(other.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((done) => other?.close(done));
});

test("a page on another origin calls the API and Relay with its keys", async ({ page }) => {
  await page.goto(`${otherOrigin}/`);
  const result = await page.evaluate(
    async ({ server, apiKey, username, password }) => {
      const read = async (res: Response) => ({
        status: res.status,
        body: (await res.json()) as Record<string, unknown>,
        requestId: res.headers.get("request-id"),
        remaining: res.headers.get("x-ratelimit-remaining"),
        retryAfter: res.headers.get("retry-after"),
      });
      const me = await read(await fetch(`${server}/api/users/@me`, { headers: { "api-key": apiKey } }));
      const posts = await read(await fetch(`${server}/api/posts`, { headers: { "api-key": apiKey } }));

      // An upload from the page: a canvas PNG as multipart, with the interface's headers.
      const canvas = document.createElement("canvas");
      canvas.width = 8;
      canvas.height = 8;
      canvas.getContext("2d")!.fillRect(0, 0, 8, 8);
      const png = await new Promise<Blob>((done) => canvas.toBlob((b) => done(b!), "image/png"));
      const form = new FormData();
      form.append("file", png, "dot.png");
      const uploaded = await read(
        await fetch(`${server}/api/upload`, {
          method: "POST",
          headers: { "api-key": apiKey, "post-privacy": "unlisted", priority: "false" },
          body: form,
        }),
      );

      // Relay: sign in with a JSON body, then use the relay-key.
      const login = await read(
        await fetch(`${server}/relay/auth/login`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ username, password }),
        }),
      );
      const relayMe = await read(await fetch(`${server}/relay/users/@me`, { headers: { "relay-key": String(login.body.key) } }));

      const unauthorized = await read(await fetch(`${server}/api/users/@me`, { headers: { "api-key": "not-a-key" } }));
      // Cookies are never part of it: a credentialed request is refused by the browser.
      const credentialed = await fetch(`${server}/api/users/@me`, { headers: { "api-key": apiKey }, credentials: "include" }).then(
        () => "answered",
        () => "refused",
      );
      return { origin: location.origin, me, posts, uploaded, login: login.status, relayMe, unauthorized, credentialed };
    },
    { server: baseUrl(), apiKey: user.apiKey, username: user.username, password: user.password },
  );

  expect(result.origin).toBe(otherOrigin);
  expect(result.me.status).toBe(200);
  expect(result.me.body.username).toBe(user.username);
  expect(result.me.requestId).toMatch(/^[0-9a-f]{32}$/);
  expect(result.posts.status).toBe(200);
  expect(Number(result.posts.remaining)).toBeGreaterThanOrEqual(0);
  expect(result.uploaded.status, JSON.stringify(result.uploaded.body)).toBe(200);
  expect((result.uploaded.body.post as { privacy: string }).privacy).toBe("unlisted");
  expect(result.login).toBe(200);
  expect(result.relayMe.status).toBe(200);
  expect(result.relayMe.body.username).toBe(user.username);
  expect(result.unauthorized.status).toBe(401);
  expect((result.unauthorized.body.error as { type: string }).type).toBe("unauthorized");
  expect(result.unauthorized.requestId).toMatch(/^[0-9a-f]{32}$/);
  expect(result.credentialed).toBe("refused");
});
