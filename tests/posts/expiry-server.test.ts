/**
 * Expiry and view limits on the production server (docs/expiry.md): the upload headers
 * over real HTTP, /cdn through the fast lane with its descriptor and open-file caches
 * warm, the share page spending views (people only), and the files leaving DATA_DIR once
 * the post expired, deleted by the read that noticed it or by the periodic sweep.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture } from "../support/media";
import { freePort, startTestServer, type TestServer } from "../support/server";
import { serverUser, serverApp } from "../support/server-accounts";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";
const DISCORD = "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)";

interface PostJson {
  code: string;
  url: string;
  expires_at: string | null;
  max_views: number | null;
  view_count: number;
  files: { url: string }[];
}

let server: TestServer;
let key: string;

beforeAll(async () => {
  const port = await freePort();
  server = await startTestServer({
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    // Short, so the test sees the last view's grace period end and the sweep run.
    VIEW_LIMIT_GRACE_SECONDS: "1",
    RECOVERY_INTERVAL_SECONDS: "1",
  });
  await serverUser(server, "expiry_user", "ultra");
  key = (await serverApp(server, "expiry_user", "Expiry", { galleryAccess: true })).key as string;
}, 600_000);
afterAll(async () => {
  if (server) await server.stop();
});

async function get(url: string, headers: Record<string, string> = {}): Promise<Response> {
  try {
    return await fetch(url, { headers });
  } catch {
    // A pooled keep-alive connection the server just closed: once more.
    return fetch(url, { headers });
  }
}

async function upload(headers: Record<string, string>): Promise<PostJson> {
  const form = new FormData();
  form.append("file", new Blob([await readFile(await fixture("png"))], { type: "image/png" }), "pic.png");
  const response = await fetch(`${server.url}/api/upload`, { method: "POST", headers: { "api-key": key, ...headers }, body: form });
  const body = (await response.json()) as { post: PostJson };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.post;
}

/** Every stored object under DATA_DIR/files. */
async function storedFiles(): Promise<string[]> {
  const entries = await readdir(join(server.dataDir, "files"), { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never happened: ${what}\n${server.output().slice(-2000)}`);
}

describe("expiry on the production server", () => {
  it("a post expiring by time: served until then (cached), 404 at once after, files removed", async () => {
    const before = new Set(await storedFiles());
    // Long enough for a loaded machine to upload and read it three times before it expires.
    const post = await upload({ "post-privacy": "public", "expires-at": "15s" });
    const mine = (await storedFiles()).filter((f) => !before.has(f));
    expect(mine.length).toBeGreaterThan(0);
    const file = post.files[0].url;
    for (let i = 0; i < 3; i++) {
      const hit = await get(file);
      expect(hit.status).toBe(200);
      // Cacheable only until the post expires, not for a year.
      const maxAge = /^private, max-age=(\d+)$/.exec(hit.headers.get("cache-control") ?? "");
      expect(maxAge).not.toBeNull();
      expect(Number(maxAge![1])).toBeLessThanOrEqual(15);
      await hit.arrayBuffer();
    }
    // A person's page; its view is counted after the reply (a database change).
    expect((await get(post.url, { "user-agent": BROWSER })).status).toBe(200);
    // Robots' pages are replayed from memory (lib/server/page-cache.ts) until the database
    // changes; any write in between (a sweep, a counted view) starts over, hence the loop...
    let replayed = false;
    for (let i = 0; i < 20 && !replayed; i++) {
      const robot = await get(post.url, { "user-agent": DISCORD });
      expect(robot.status).toBe(200);
      await robot.text();
      replayed = robot.headers.get("x-mediahost-cache") === "hit";
    }
    expect(replayed, "a robot's page replayed from the cache").toBe(true);

    while (Date.now() <= Date.parse(post.expires_at!)) await new Promise((r) => setTimeout(r, 50));

    // ...but never past the post's expiry, though no database change told the cache (asked
    // first, before a read deletes the post, which is a change).
    expect((await get(post.url, { "user-agent": DISCORD })).status).toBe(404);

    expect((await get(file)).status).toBe(404);
    expect((await get(`${server.url}/api/posts/${post.code}`, { "api-key": key })).status).toBe(404);
    expect((await get(post.url, { "user-agent": BROWSER })).status).toBe(404);
    await eventually(async () => {
      const now = new Set(await storedFiles());
      return mine.every((f) => !now.has(f));
    }, "the expired post's files removed");
  });

  it("a view-limited post: people's page views spend it, robots and the owner do not; then 404 and files removed", async () => {
    const before = new Set(await storedFiles());
    const post = await upload({ "post-privacy": "unlisted", "max-views": "2" });
    const mine = (await storedFiles()).filter((f) => !before.has(f));

    // An unfurler gets a page without media and spends nothing.
    const robot = await get(post.url, { "user-agent": DISCORD });
    expect(robot.status).toBe(200);
    const robotHtml = await robot.text();
    expect(robotHtml).not.toContain("og:image");
    expect(robotHtml).not.toContain(`/cdn/${post.code}/`);
    expect((await get(post.files[0].url.split("?")[0])).status).toBe(403);
    // The owner's reads spend nothing either.
    const own = (await (await get(`${server.url}/api/posts/${post.code}`, { "api-key": key })).json()) as { post: PostJson };
    expect(own.post.view_count).toBe(0);

    const first = await get(post.url, { "user-agent": BROWSER });
    expect(first.status).toBe(200);
    const firstHtml = await first.text();
    // The first signed URL on the page (the image's src, a rendition; srcset entries end at a space).
    const signed = /\/cdn\/[^"\s]+sig=[^"&\s]+/.exec(firstHtml.replaceAll("&amp;", "&"));
    expect(signed, "a signed file link on the page").not.toBeNull();
    const media = await get(`${server.url}${signed![0]}`);
    expect(media.status).toBe(200);
    await media.arrayBuffer();

    const second = await get(post.url, { "user-agent": BROWSER });
    expect(second.status).toBe(200);
    await second.text();
    expect((await get(post.url, { "user-agent": BROWSER })).status).toBe(404);
    const after = (await (await get(`${server.url}/api/posts/${post.code}`, { "api-key": key })).json()) as { post?: PostJson };
    // The owner still sees it during the last viewer's grace period, with both views counted.
    if (after.post) expect(after.post.view_count).toBe(2);

    await eventually(async () => {
      const now = new Set(await storedFiles());
      return mine.every((f) => !now.has(f));
    }, "the used-up post's files removed by the sweep");
    expect((await get(`${server.url}/api/posts/${post.code}`, { "api-key": key })).status).toBe(404);
  });

  it("refuses bad headers with 400 invalid_request", async () => {
    const form = new FormData();
    form.append("file", new Blob([await readFile(await fixture("png"))], { type: "image/png" }), "pic.png");
    const response = await fetch(`${server.url}/api/upload`, { method: "POST", headers: { "api-key": key, "max-views": "0" }, body: form });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe("invalid_request");
  });
});
