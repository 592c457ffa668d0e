/**
 * Public files through a caching proxy (docs/operations.md, "Caching public files"): Debian's
 * nginx with the cache zone and /cdn/ location the doc gives (tests/support/nginx.ts, checked
 * here against the doc) in front of a production server with SHARED_CACHE_SECONDS=2. A hot
 * public file is answered from nginx's cache (the service never sees the request), revalidated
 * with its ETag once stale; a privacy change is honoured once the lifetime has passed; a
 * private file's signed URL is never stored.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cacheLocation, cachePath, startNginx, type Nginx } from "../support/nginx";
import { startTestServer, type TestServer } from "../support/server";
import { serverApp, serverUser } from "../support/server-accounts";

const TTL_SECONDS = 2;

interface PostJson {
  code: string;
  files: { url: string }[];
}

describe("SHARED_CACHE_SECONDS behind nginx's proxy cache", () => {
  let server: TestServer;
  let nginx: Nginx;
  let key: string;
  let image: Buffer;

  beforeAll(async () => {
    server = await startTestServer({ SHARED_CACHE_SECONDS: String(TTL_SECONDS) });
    nginx = await startNginx({ upstream: server.url, cache: true });
    await serverUser(server, "cacher", "ultra");
    ({ key } = await serverApp(server, "cacher", "Cacher", { galleryAccess: true }));
    image = await sharp({
      create: { width: 400, height: 300, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 60 } },
    })
      .jpeg({ quality: 90 })
      .toBuffer();
  }, 300_000);
  afterAll(async () => {
    await nginx?.stop();
    await server?.stop();
  });

  const path = (url: string): string => {
    const u = new URL(url);
    return u.pathname + u.search;
  };
  async function proxied(target: string): Promise<{ res: Response; body: Buffer }> {
    const get = () => fetch(`${nginx.url}${target}`);
    // Once more: a pooled connection nginx has just closed as idle.
    const res = await get().catch(get);
    return { res, body: Buffer.from(await res.arrayBuffer()) };
  }
  async function upload(privacy: "public" | "private"): Promise<PostJson> {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(image)], { type: "image/jpeg" }), "photo.jpg");
    const send = () =>
      fetch(`${server.url}/api/upload`, { method: "POST", headers: { "api-key": key, "post-privacy": privacy }, body: form });
    const res = await send().catch(send);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return (JSON.parse(text) as { post: PostJson }).post;
  }
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /**
   * Past the lifetime as nginx counts it: it keeps time in whole seconds and an entry is
   * stale once the second it holds is past `stored + s-maxage`, so a copy stored late in a
   * second stays fresh up to a second longer than the lifetime (a CI run met a HIT at 2.5 s).
   */
  const pastLifetime = () => pause((TTL_SECONDS + 1) * 1000 + 200);

  it("the cache zone and location are the ones docs/operations.md gives", () => {
    const doc = readFileSync(join(import.meta.dirname, "..", "..", "docs", "operations.md"), "utf8");
    expect(doc).toContain(cachePath("/var/cache/nginx/mediahost"));
    expect(doc).toContain(cacheLocation("    "));
  });

  it("a hot public file comes from nginx's cache, is revalidated once stale, and a privacy change is honoured after the lifetime", async () => {
    const post = await upload("public");
    const url = path(post.files[0].url);

    const first = await proxied(url);
    expect(first.res.status).toBe(200);
    expect(first.res.headers.get("x-cache-status")).toBe("MISS");
    expect(first.res.headers.get("cache-control")).toBe(`public, max-age=31536000, s-maxage=${TTL_SECONDS}, immutable`);

    // Served by nginx alone: the service's request id is the first answer's.
    const hot = await proxied(url);
    expect(hot.res.status).toBe(200);
    expect(hot.res.headers.get("x-cache-status")).toBe("HIT");
    expect(hot.res.headers.get("request-id")).toBe(first.res.headers.get("request-id"));
    expect(hot.body).toEqual(first.body);

    // Stale: asked again with the ETag, and kept on the service's 304.
    await pastLifetime();
    const again = await proxied(url);
    expect(again.res.status).toBe(200);
    expect(again.res.headers.get("x-cache-status")).toBe("REVALIDATED");
    expect(again.body).toEqual(first.body);

    // Made private: once the lifetime has passed, nginx's revalidation gets the refusal, and keeps refusing.
    const patched = await fetch(`${server.url}/api/posts/${post.code}`, {
      method: "PATCH",
      headers: { "api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ privacy: "private" }),
    });
    expect(patched.status, await patched.text()).toBe(200);
    await pastLifetime();
    for (let i = 0; i < 2; i++) {
      const refused = await proxied(url);
      expect(refused.res.status).toBe(403);
      expect(refused.res.headers.get("x-cache-status")).not.toBe("HIT");
    }
  });

  it("a private file's signed URL is never stored: every request reaches the service", async () => {
    const post = await upload("private");
    const signed = path(post.files[0].url);
    expect(signed).toContain("sig=");
    const ids = new Set<string | null>();
    for (let i = 0; i < 3; i++) {
      const { res, body } = await proxied(signed);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toMatch(/^private, /);
      expect(res.headers.get("x-cache-status")).toBe("MISS");
      expect(body.length).toBeGreaterThan(0);
      ids.add(res.headers.get("request-id"));
    }
    expect(ids.size).toBe(3);
  });
});
