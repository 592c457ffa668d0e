/**
 * Tags, favourites, QR codes and link visits through the real server over HTTP
 * (docs/tags.md, docs/qr-and-visits.md): the owner tags and filters, a reader and the share
 * page never see a tag, the QR images come back as images, and a short link's visits are
 * counted from the Referer the redirect receives. On SQLite, and on PostgreSQL + Redis with
 * TEST_DATABASE_URL and TEST_REDIS_URL.
 */
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture } from "../support/media";
import { freePort, startTestServer, type TestServer } from "../support/server";
import { serverApp, serverSession, serverUser } from "../support/server-accounts";

describe("tags, QR codes and visits on the real server", () => {
  let server: TestServer;
  let owner: string;
  let ownerRelay: string;
  let reader: string;
  beforeAll(async () => {
    const port = await freePort();
    server = await startTestServer({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
    await serverUser(server, "tagger");
    await serverUser(server, "reader");
    owner = (await serverApp(server, "tagger", "Desk", { galleryAccess: true })).key;
    ownerRelay = (await serverSession(server, "tagger")).key;
    reader = (await serverApp(server, "reader", "Desk", { galleryAccess: true })).key;
  }, 180_000);
  afterAll(async () => {
    if (server) await server.stop();
  });

  const call = async (path: string, key: string | null, init: { method?: string; body?: unknown; header?: string } = {}) => {
    const headers: Record<string, string> = key ? { [init.header ?? "api-key"]: key } : {};
    if (init.body !== undefined) headers["content-type"] = "application/json";
    const base = init.header === "relay-key" ? "/relay" : "/api";
    return fetch(`${server.url}${base}${path}`, {
      method: init.method ?? "GET",
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  };
  const upload = async (key: string): Promise<string> => {
    const body = new FormData();
    body.append("file", new Blob([await readFile(await fixture("png"))], { type: "image/png" }), "shot.png");
    const res = await fetch(`${server.url}/api/upload`, { method: "POST", body, headers: { "api-key": key, "post-privacy": "public" } });
    expect(res.status).toBe(200);
    return (await res.json()).post.code;
  };

  it("tags and marks posts, filters them on the API and Relay, and keeps the tags from everyone else", async () => {
    const codes = [await upload(owner), await upload(owner), await upload(owner)];
    const tag = (await (await call("/tags", owner, { method: "POST", body: { name: "Private label", color: "#ff0000" } })).json()).tag;
    const batch = await call("/posts/batch", owner, { method: "POST", body: { action: "tag_add", tag: tag.id, codes: codes.slice(0, 2) } });
    expect((await batch.json()).succeeded).toHaveLength(2);
    const patched = await call(`/posts/${codes[1]}`, owner, { method: "PATCH", body: { favorite: true } });
    expect((await patched.json()).post).toMatchObject({ favorite: true, tags: [{ id: tag.id, name: "Private label" }] });

    const tagged = await (await call(`/posts?tag=${tag.id}&limit=1`, owner)).json();
    expect(tagged.posts.map((p: { code: string }) => p.code)).toEqual([codes[1]]);
    const next = await (await call(`/posts?tag=${tag.id}&limit=1&cursor=${tagged.next_cursor}`, owner)).json();
    expect(next.posts.map((p: { code: string }) => p.code)).toEqual([codes[0]]);
    const favourites = await (await call("/posts?favorite=true", ownerRelay, { header: "relay-key" })).json();
    expect(favourites.posts.map((p: { code: string }) => p.code)).toEqual([codes[1]]);

    // A reader, and the share page, never see the tag or the mark.
    const seen = await call(`/posts/${codes[1]}`, reader);
    const seenText = await seen.text();
    expect(seen.status).toBe(200);
    expect(seenText).not.toContain("Private label");
    expect(seenText).not.toContain('"favorite"');
    const page = await fetch(`${server.url}/p/${codes[1]}`, { headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0" } });
    expect(page.status).toBe(200);
    expect(await page.text()).not.toContain("Private label");
  });

  it("answers a post's and a link's QR code as images", async () => {
    const code = await upload(owner);
    const svg = await call(`/posts/${code}/qr`, reader);
    expect(svg.status).toBe(200);
    expect(svg.headers.get("content-type")).toBe("image/svg+xml");
    expect(await svg.text()).toMatch(/^<svg/);
    const png = await call(`/posts/${code}/qr?format=png&size=256`, owner);
    expect(png.headers.get("content-type")).toBe("image/png");
    const bytes = new Uint8Array(await png.arrayBuffer());
    expect([...bytes.slice(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect((await call(`/posts/${code}/qr?format=jpeg`, owner)).status).toBe(400);

    const link = (await (await call("/links", owner, { method: "POST", body: { url: "https://example.com/menu" } })).json()).link;
    const linkQr = await call(`/links/${link.code}/qr?download=true`, owner);
    expect(linkQr.status).toBe(200);
    expect(linkQr.headers.get("content-disposition")).toBe(`attachment; filename="qr-${link.code}.svg"`);
    expect((await call(`/links/${link.code}/qr`, reader)).status).toBe(404);
  });

  it("counts a short link's visits by day and referring host from real redirects", async () => {
    const link = (await (await call("/links", owner, { method: "POST", body: { url: "https://example.com/" } })).json()).link;
    const follow = (referer?: string) => fetch(`${server.url}/s/${link.code}`, { redirect: "manual", headers: referer ? { referer } : {} });
    expect((await follow("https://forum.example/thread/12?user=alice")).status).toBe(302);
    expect((await follow("https://forum.example/other")).status).toBe(302);
    expect((await follow()).status).toBe(302);

    const visits = await (await call(`/links/${link.code}/visits?range=7d`, owner)).json();
    expect(visits.visit_count).toBe(3);
    expect(visits.days.at(-1)).toEqual({ day: new Date().toISOString().slice(0, 10), visit_count: 3 });
    expect(visits.referrers).toEqual([
      { host: "forum.example", visit_count: 2 },
      { host: null, visit_count: 1 },
    ]);
    expect(JSON.stringify(visits)).not.toContain("alice");
    expect((await call(`/links/${link.code}/visits`, reader)).status).toBe(404);
  });

  it("publishes the new endpoints in both OpenAPI documents", async () => {
    for (const [base, paths] of [
      ["/api", ["/tags", "/tags/{id}", "/posts/{code}/qr", "/links/{code}/qr", "/links/{code}/visits"]],
      ["/relay", ["/tags", "/tags/{id}", "/posts/{code}/qr", "/links/{code}/qr", "/links/{code}/visits"]],
    ] as const) {
      const doc = await (await fetch(`${server.url}${base}/openapi.json`)).json();
      for (const path of paths) expect(doc.paths[path], `${base}${path}`).toBeDefined();
      expect(doc.components.schemas.Post.properties.tags).toBeDefined();
      expect(Object.keys(doc.paths["/posts/{code}/qr"].get.responses["200"].content)).toEqual(["image/svg+xml", "image/png"]);
    }
  });
});
