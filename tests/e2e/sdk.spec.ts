/**
 * The SDK in a browser (docs/sdk.md, "In the browser"): the bundle of `npm run sdk:bundle`,
 * loaded as an ES module by a page on another origin, uploads a `File`, reads and pages
 * the API, turns errors into MediaHostError with the request-id and retry-after headers
 * CORS exposes, and signs in to Relay.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { bundleSdk } from "../../scripts/sdk-bundle";
import { baseUrl, createUser, type E2EUser } from "./support";

type Sdk = typeof import("../../sdk/src/index");

let other: Server;
let otherOrigin: string;
let user: E2EUser;
/** The browser example of docs/sdk.md ("Examples"), pointed at the test server with the user's key. */
let examplePage: string;

test.beforeAll(async () => {
  user = await createUser();
  const bundle = await bundleSdk();
  const sdkPage = readFileSync(new URL("../../docs/sdk.md", import.meta.url), "utf8");
  const example = /```html\n([\s\S]*?)```/.exec(sdkPage.slice(sdkPage.indexOf("## Examples")))?.[1] ?? "";
  examplePage = example.replace("https://media.example.com/api", `${baseUrl()}/api`).replace("YOUR_APP_KEY", user.apiKey);
  // The second origin serves the bundle and a page that imports it, as docs/sdk.md shows.
  other = createServer((req, res) => {
    if (req.url === "/example.html") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><title>SDK example</title>${examplePage}`);
      return;
    }
    if (req.url === "/mediahost-sdk.js") {
      res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" });
      res.end(bundle);
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(
      '<!doctype html><title>SDK client</title><script type="module">import * as sdk from "/mediahost-sdk.js"; window.mediahostSdk = sdk;</script>',
    );
  });
  await new Promise<void>((done) => other.listen(0, "127.0.0.1", done));
  otherOrigin = `http://localhost:${(other.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((done) => other?.close(done));
});

test("a page on another origin uses the SDK bundle: upload a File, read, page, typed errors, Relay sign-in", async ({ page }) => {
  await page.goto(`${otherOrigin}/`);
  await page.waitForFunction(() => "mediahostSdk" in window);
  const result = await page.evaluate(
    async ({ server, apiKey, username, password }) => {
      const sdk = (window as unknown as { mediahostSdk: Sdk }).mediahostSdk;
      const api = sdk.createApiClient({ baseUrl: `${server}/api`, apiKey });
      const errorOf = async (promise: Promise<unknown>) => {
        try {
          await promise;
          return null;
        } catch (e) {
          return e instanceof sdk.MediaHostError
            ? { type: e.type, status: e.status, requestId: e.requestId, retryAfter: e.retryAfter }
            : { other: String(e) };
        }
      };

      // A File as a file input gives one: a canvas PNG.
      const canvas = document.createElement("canvas");
      canvas.width = 8;
      canvas.height = 8;
      canvas.getContext("2d")!.fillRect(0, 0, 8, 8);
      const png = await new Promise<Blob>((done) => canvas.toBlob((b) => done(b!), "image/png"));
      const files = [new File([png], "one.png", { type: "image/png" }), new File([png], "two.png", { type: "image/png" })];
      const uploaded = await api.upload(files, { privacy: "unlisted", postType: "single", priority: false });
      const codes = "posts" in uploaded ? uploaded.posts.map((p) => p.code) : [];
      const { post } = await api.get("/posts/{code}", { params: { path: { code: codes[0] } } });

      const listed: string[] = [];
      for await (const item of api.paginate("/posts", { params: { query: { limit: 1 } } })) listed.push(item.code);

      const notFound = await errorOf(api.get("/posts/{code}", { params: { path: { code: "nosuchpost" } } }));

      const session = await sdk.signIn({ baseUrl: `${server}/relay`, username, password, device: "SDK browser test" });
      const me = await session.client.get("/users/{id}", { params: { path: { id: "@me" } } });
      // Reports: 3 a minute per user; the 4th is rate_limited with Retry-After.
      for (let i = 0; i < 3; i++)
        await session.client.post("/posts/{code}/report", { params: { path: { code: "nosuchpost" } }, body: {} }).catch(() => undefined);
      const limited = await errorOf(session.client.post("/posts/{code}/report", { params: { path: { code: "nosuchpost" } }, body: {} }));
      return {
        origin: location.origin,
        codes,
        post: { code: post.code, privacy: post.privacy, name: post.files[0].name },
        listed,
        notFound,
        me: me.username,
        limited,
      };
    },
    { server: baseUrl(), apiKey: user.apiKey, username: user.username, password: user.password },
  );

  expect(result.origin).toBe(otherOrigin);
  expect(result.codes).toHaveLength(2);
  expect(result.post.code).toBe(result.codes[0]);
  expect(result.post.privacy).toBe("unlisted");
  expect(result.post.name).toMatch(/\.png$/);
  expect(result.listed.sort()).toEqual([...result.codes].sort());
  expect(result.notFound).toMatchObject({ type: "not_found", status: 404 });
  expect(result.notFound?.requestId).toMatch(/^[0-9a-f]{32}$/);
  expect(result.me).toBe(user.username);
  expect(result.limited).toMatchObject({ type: "rate_limited", status: 429 });
  expect(result.limited?.retryAfter).toBeGreaterThan(0);
});

test("the browser example of docs/sdk.md works as written: pick files, get their share pages", async ({ page }) => {
  expect(examplePage).toContain(user.apiKey);
  await page.goto(`${otherOrigin}/example.html`);
  // A real PNG (1x1) from the test process: what a person picks in the file dialog.
  const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
  await page.locator("#files").setInputFiles([{ name: "dot.png", mimeType: "image/png", buffer: png }]);
  await expect(page.locator("#out")).toHaveText(new RegExp(`^${baseUrl().replace(/[.:/]/g, "\\$&")}/p/\\w+$`));
});
