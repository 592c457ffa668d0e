/**
 * The read caches through the real production server (docs/caching.md): robots' share
 * pages are replayed from memory, people's never are, and nothing cached outlives a
 * change, whether this server made it or the admin CLI (another process) did.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FLUSH_DELAY_MS } from "@/lib/auth/activity";
import { fixture } from "../support/media";
import { freePort, startTestServer, type TestServer } from "../support/server";
import { serverApp, serverUser } from "../support/server-accounts";

const run = promisify(execFile);
const ROBOT = "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)";
const PERSON = "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0";

describe("read caches on the production server", () => {
  let server: TestServer;
  let key: string;
  let appId: string;
  const admin = async (...args: string[]): Promise<Record<string, unknown>> => {
    const { stdout } = await run(process.execPath, ["scripts/launch.mjs", "admin", ...args], {
      env: { ...process.env, ...server.env },
    });
    return JSON.parse(stdout);
  };
  const page = (code: string, userAgent: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/p/${code}`, { headers: { "user-agent": userAgent, ...headers } });
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api${path}`, { ...init, headers: { "api-key": key, "content-type": "application/json", ...init.headers } });
  const ogTitle = (html: string) => /<meta property="og:title" content="([^"]*)"/.exec(html)?.[1];

  async function uploadPost(): Promise<string> {
    const body = new FormData();
    body.append("file", new Blob([await readFile(await fixture("png"))], { type: "image/png" }), "shot.png");
    const res = await fetch(`${server.url}/api/upload`, { method: "POST", body, headers: { "api-key": key, "post-privacy": "public" } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { post: { code: string } }).post.code;
  }

  beforeAll(async () => {
    const port = await freePort();
    server = await startTestServer({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
    await serverUser(server, "cache_user");
    const app = await serverApp(server, "cache_user", "Cache", { galleryAccess: true });
    key = app.key as string;
    appId = app.id as string;
  }, 180_000);
  afterAll(async () => {
    if (server) await server.stop();
  });

  it("replays a robot's share page with a fresh request-id, and renders it anew after an edit", async () => {
    const code = await uploadPost();
    // The upload marked the new key as used; that write lands within FLUSH_DELAY_MS and,
    // like every commit, empties the read caches (lib/auth/activity.ts). Let it land first.
    await new Promise((done) => setTimeout(done, FLUSH_DELAY_MS * 3));
    // Uncompressed, so the length on the wire is the length of the text.
    const first = await page(code, ROBOT, { "accept-encoding": "identity" });
    const second = await page(code, ROBOT, { "accept-encoding": "identity" });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    const [a, b] = [await first.text(), await second.text()];
    expect(b).toBe(a);
    expect(first.headers.get("x-mediahost-cache")).toBeNull();
    expect(second.headers.get("x-mediahost-cache")).toBe("hit");
    expect(second.headers.get("request-id")).toMatch(/^[0-9a-f]{32}$/);
    expect(second.headers.get("request-id")).not.toBe(first.headers.get("request-id"));
    expect(second.headers.get("content-type")).toMatch(/^text\/html/);
    expect(Number(second.headers.get("content-length"))).toBe(Buffer.byteLength(b));
    // Compressed pages are kept apart from plain ones, and replayed compressed. (Two
    // renders of one page need not be byte-identical: Next streams its data in whatever
    // order it is ready. A replay is identical to the render it recorded.)
    const gzMiss = await page(code, ROBOT, { "accept-encoding": "gzip" });
    const gzMissText = await gzMiss.text();
    const gzHit = await page(code, ROBOT, { "accept-encoding": "gzip" });
    expect(gzMiss.headers.get("x-mediahost-cache")).toBeNull();
    expect(gzHit.headers.get("x-mediahost-cache")).toBe("hit");
    for (const res of [gzMiss, gzHit]) expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(await gzHit.text()).toBe(gzMissText);
    expect(ogTitle(gzMissText)).toBe(ogTitle(a));

    expect((await api(`/posts/${code}`, { method: "PATCH", body: JSON.stringify({ title: "Renamed" }) })).status).toBe(200);
    const renamed = await page(code, ROBOT);
    expect(renamed.headers.get("x-mediahost-cache")).toBeNull();
    expect(ogTitle(await renamed.text())).toBe("Renamed");

    expect((await api(`/posts/${code}`, { method: "PATCH", body: JSON.stringify({ privacy: "private" }) })).status).toBe(200);
    expect((await page(code, ROBOT)).status).toBe(404);
  });

  it("robots that ask while a page renders wait for that one render and get it replayed", async () => {
    const code = await uploadPost();
    await new Promise((done) => setTimeout(done, FLUSH_DELAY_MS * 3));
    const replies = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const res = await page(code, ROBOT, { "accept-encoding": "identity" });
        return { status: res.status, cache: res.headers.get("x-mediahost-cache"), text: await res.text() };
      }),
    );
    for (const reply of replies) expect(reply.status).toBe(200);
    // One render; the seven others are its recording.
    expect(replies.filter((reply) => reply.cache !== "hit")).toHaveLength(1);
    const rendered = replies.find((reply) => reply.cache !== "hit")!;
    for (const reply of replies) expect(reply.text).toBe(rendered.text);
  });

  it("sees the admin CLI's changes (another process) at once", async () => {
    const code = await uploadPost();
    expect((await page(code, ROBOT)).status).toBe(200);
    expect((await api(`/posts/${code}`)).status).toBe(200);
    await admin("post", "moderate", "--code", code);
    expect(await (await page(code, ROBOT)).text()).toContain("under moderation");
    await admin("post", "unmoderate", "--code", code);
    expect((await api(`/posts/${code}`)).status).toBe(200);
    await admin("app", "revoke", "--app", appId);
    expect((await api(`/posts/${code}`)).status).toBe(401);
    key = (await admin("app", "regenerate", "--app", appId)).key as string;
    expect((await api(`/posts/${code}`)).status).toBe(200);
    // Four admin CLI processes (tsx, a database connection each): seconds apiece on a busy machine.
  }, 120_000);

  it("a new key's activity leaves the caches warm; a cached read keeps every header and its count", async () => {
    const code = await uploadPost();
    // A key never used before: its first read marks it used, written within FLUSH_DELAY_MS.
    await admin("user", "create", "--username", "cache_reader");
    const reader = (await admin("app", "create", "--user", "cache_reader", "--name", "Reader", "--gallery-access")).key as string;
    await new Promise((done) => setTimeout(done, FLUSH_DELAY_MS * 3));
    await (await page(code, ROBOT)).text();
    expect((await page(code, ROBOT)).headers.get("x-mediahost-cache")).toBe("hit");
    const read = () => fetch(`${server.url}/api/posts/${code}`, { headers: { "api-key": reader } });
    const first = await read();
    expect(first.status).toBe(200);
    const body = await first.text();
    await new Promise((done) => setTimeout(done, FLUSH_DELAY_MS * 3));
    // That write moved no change number (lib/db/unannounced.ts): the robot's page is still
    // replayed, and the reader's key and the post are still answered from memory.
    expect((await page(code, ROBOT)).headers.get("x-mediahost-cache")).toBe("hit");

    const second = await read();
    expect(second.status).toBe(200);
    expect(await second.text()).toBe(body);
    // Answered from memory when the rate-limit counters are in process; with Redis every
    // read takes the full pipeline (docs/caching.md), and the same rules hold.
    expect(second.headers.get("x-mediahost-cache")).toBe(process.env.TEST_REDIS_URL ? null : "hit");
    expect(second.headers.get("request-id")).toMatch(/^[0-9a-f]{32}$/);
    expect(second.headers.get("request-id")).not.toBe(first.headers.get("request-id"));
    expect(second.headers.get("x-content-type-options")).toBe("nosniff");
    expect(second.headers.get("cache-control")).toBe("no-store");
    expect(second.headers.get("access-control-allow-origin")).toBe("*");
    expect(second.headers.get("content-type")).toMatch(/^application\/json/);
    expect(Number(second.headers.get("content-length"))).toBe(Buffer.byteLength(body));
    const remaining = Number(second.headers.get("x-ratelimit-remaining"));
    expect(remaining).toBe(Number(first.headers.get("x-ratelimit-remaining")) - 1);

    // Every cached read counts: the one past the limit is the pipeline's 429.
    for (let i = remaining; i > 0; i--) {
      const r = await read();
      expect(r.status).toBe(200);
      await r.arrayBuffer();
    }
    const over = await read();
    expect(over.status).toBe(429);
    expect(((await over.json()) as { error: { type: string } }).error.type).toBe("rate_limited");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(over.headers.get("request-id")).toMatch(/^[0-9a-f]{32}$/);
  }, 120_000);

  it("people always get a fresh render, which counts their view", async () => {
    const code = await uploadPost();
    // As above: the key's use is written within FLUSH_DELAY_MS, and that commit empties
    // the caches (on PostgreSQL through its change notification, a moment later still).
    await new Promise((done) => setTimeout(done, FLUSH_DELAY_MS * 3));
    await (await page(code, ROBOT)).text();
    expect((await page(code, ROBOT)).headers.get("x-mediahost-cache")).toBe("hit");
    const person = await page(code, PERSON);
    expect(person.headers.get("x-mediahost-cache")).toBeNull();
    await person.text();
    const withCookie = await page(code, ROBOT, { cookie: "theme=dark" });
    expect(withCookie.headers.get("x-mediahost-cache")).toBeNull();
    await withCookie.text();
    await (await page(code, PERSON, { cookie: "theme=dark" })).text();
    // The view is written after the page is sent.
    let views = 0;
    for (let i = 0; i < 50 && views < 2; i++) {
      await new Promise((done) => setTimeout(done, 50));
      views = ((await (await api(`/posts/${code}`)).json()) as { post: { view_count: number } }).post.view_count;
    }
    expect(views).toBe(2);
  });
});
