/**
 * Compression on the production server (issue 29, docs/compression.md): pages (Next's
 * server), their scripts and style sheets (compressed once at build, lib/server/static-assets.ts)
 * and the fast lane's JSON are sent with Brotli or gzip when the request accepts it, with
 * `Vary: Accept-Encoding`, and as they are when it does not.
 * Read with node:http, which neither asks for nor undoes any encoding.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { type Raw, rawGet } from "../support/raw-get";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startTestServer, type TestServer } from "../support/server";
import { serverUser, serverApp } from "../support/server-accounts";

const get = rawGet;

function decoded(raw: Raw): string {
  const encoding = raw.headers["content-encoding"];
  if (encoding === "gzip") return gunzipSync(raw.body).toString();
  if (encoding === "br") return brotliDecompressSync(raw.body).toString();
  return raw.body.toString();
}

const varies = (raw: Raw): boolean => /(^|,)\s*accept-encoding\s*(,|$)/i.test(String(raw.headers.vary ?? ""));

describe("compression on the production server", () => {
  let server: TestServer;
  let key: string;
  let shareUrl: string;
  beforeAll(async () => {
    const port = await freePort();
    server = await startTestServer({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
    await serverUser(server, "squeeze_user");
    key = (await serverApp(server, "squeeze_user", "Squeeze", { galleryAccess: true })).key as string;
    // Enough posts that the list is well over the 1 KB threshold.
    for (let i = 0; i < 6; i++) {
      const form = new FormData();
      const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
      form.append("file", new Blob([png], { type: "image/png" }), `dot-${i}.png`);
      const res = await fetch(`${server.url}/api/upload`, {
        method: "POST",
        headers: { "api-key": key, "post-privacy": "public" },
        body: form,
      });
      expect(res.status).toBe(200);
      shareUrl = ((await res.json()) as { post: { url: string } }).post.url;
    }
  }, 180_000);
  afterAll(async () => {
    if (server) await server.stop();
  });

  it("the posts list (JSON from the fast lane): gzip or Brotli when accepted, plain otherwise, Vary either way", async () => {
    const url = `${server.url}/api/posts`;
    const plain = await get(url, { "api-key": key });
    expect(plain.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(1024);
    expect(varies(plain)).toBe(true);
    expect(Number(plain.headers["content-length"])).toBe(plain.body.length);
    const codes = (text: string): string[] => (JSON.parse(text) as { posts: { code: string }[] }).posts.map((p) => p.code);
    const list = codes(plain.body.toString());
    expect(list).toHaveLength(6);

    for (const [accept, encoding] of [
      ["gzip", "gzip"],
      ["gzip, deflate, br, zstd", "br"],
      ["br;q=0, gzip", "gzip"],
      ["*", "br"],
    ] as const) {
      const packed = await get(url, { "api-key": key, "accept-encoding": accept });
      expect(packed.status, accept).toBe(200);
      expect(packed.headers["content-encoding"], accept).toBe(encoding);
      expect(varies(packed), accept).toBe(true);
      expect(Number(packed.headers["content-length"]), accept).toBe(packed.body.length);
      expect(packed.body.length, accept).toBeLessThan(plain.body.length / 2);
      // The same list (signed URLs differ by the second they were made in).
      expect(codes(decoded(packed)), accept).toEqual(list);
    }
    // Refusing every coding gets the plain body.
    const refused = await get(url, { "api-key": key, "accept-encoding": "gzip;q=0, br;q=0" });
    expect(refused.headers["content-encoding"]).toBeUndefined();
  });

  it("a large handler Response (the OpenAPI document) is compressed too; small error replies are not", async () => {
    const doc = await get(`${server.url}/api/openapi.json`, { "accept-encoding": "gzip" });
    expect(doc.headers["content-encoding"]).toBe("gzip");
    expect(varies(doc)).toBe(true);
    expect(JSON.parse(decoded(doc)).openapi).toMatch(/^3\./);
    const missing = await get(`${server.url}/api/no-such-endpoint`, { "accept-encoding": "gzip" });
    expect(missing.status).toBe(404);
    expect(missing.headers["content-encoding"]).toBeUndefined();
  });

  it("a share page for a visitor without a session (rewritten by the server, lib/server/share-islands.ts): compressed, with Vary", async () => {
    const path = new URL(shareUrl).pathname;
    const plain = await get(`${server.url}${path}`, {});
    expect(plain.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(varies(plain)).toBe(true);
    expect(Number(plain.headers["content-length"])).toBe(plain.body.length);
    expect(plain.body.toString()).not.toMatch(/\/_next\/static\/[^"]+\.js/);
    expect(plain.body.toString()).not.toContain("self.__next_f");
    // Its style sheet inline, with the page's CSP nonce, not linked (a second round trip before the first paint).
    const nonce = /'nonce-([^']+)'/.exec(String(plain.headers["content-security-policy"]))?.[1];
    expect(nonce).toBeTruthy();
    // The nonce is base64: `+` and `/` are taken literally.
    const literal = nonce!.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    expect(plain.body.toString()).toMatch(new RegExp(`<style nonce="${literal}" data-href="/_next/static/[^"]+\\.css">[^<]*\\.sr-only`));
    expect(plain.body.toString()).not.toMatch(/<link[^>]*rel="stylesheet"/);
    // The islands script and the site icon inline too: each was a request beside the image
    // before it painted (page-inlines.ts).
    const islands = readFileSync(join(process.cwd(), "public", "share-islands.js"), "utf8");
    expect(plain.body.toString()).toContain(`<script nonce="${nonce}">${islands}</script>`);
    expect(plain.body.toString()).not.toContain("/share-islands.js");
    const icon = readFileSync(join(process.cwd(), "app", "icon.svg"), "utf8");
    expect(plain.body.toString()).toContain(`<link rel="icon" href="data:image/svg+xml,${encodeURIComponent(icon)}"`);
    // No web app manifest on a visitor's page (the dashboard's app; the sign-in page keeps it, below).
    expect(plain.body.toString()).not.toContain('rel="manifest"');
    // After the OpenGraph tags, at the end of <head>: unfurlers read a page's first kilobytes.
    const html = plain.body.toString();
    expect(html.indexOf('<meta property="og:title"')).toBeGreaterThan(0);
    expect(html.indexOf('<meta property="og:title"')).toBeLessThan(html.indexOf("<style nonce="));
    expect(html.indexOf("<style nonce=")).toBeLessThan(html.indexOf("</head>"));
    for (const [accept, encoding] of [
      ["gzip", "gzip"],
      ["gzip, deflate, br", "br"],
    ] as const) {
      const packed = await get(`${server.url}${path}`, { "accept-encoding": accept });
      expect(packed.headers["content-encoding"], accept).toBe(encoding);
      expect(varies(packed), accept).toBe(true);
      expect(Number(packed.headers["content-length"]), accept).toBe(packed.body.length);
      expect(decoded(packed), accept).toContain('document.documentElement.dataset.islands = "ready"');
    }
  });

  it("pages, their scripts and their style sheets: compressed when accepted, with Vary", async () => {
    // The sign-in page keeps Next's runtime (share pages, discover and profiles do not for visitors).
    const page = await get(`${server.url}/signin`, { "accept-encoding": "gzip" });
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.headers["content-encoding"]).toMatch(/^(gzip|br)$/);
    expect(varies(page)).toBe(true);
    const html = decoded(page);
    expect(html).toContain("<html");
    // The installable app's manifest and the icon stay linked here (docs/share-target.md).
    expect(html).toContain('<link rel="manifest" href="/manifest.webmanifest"');
    expect(html).toMatch(/<link rel="icon" href="\/icon\.svg/);
    const plain = await get(`${server.url}/signin`, {});
    expect(plain.headers["content-encoding"]).toBeUndefined();

    const script = /<script src="(\/_next\/static\/[^"]+\.js)"/.exec(html)?.[1];
    const style = /<link rel="stylesheet" href="(\/_next\/static\/[^"]+\.css)"/.exec(html)?.[1];
    for (const asset of [script, style]) {
      expect(asset).toBeTruthy();
      const res = await get(`${server.url}${asset}`, { "accept-encoding": "gzip, deflate, br" });
      expect(res.status, asset).toBe(200);
      expect(res.headers["content-encoding"], asset).toMatch(/^(gzip|br)$/);
      expect(varies(res), asset).toBe(true);
      expect(decoded(res).length, asset).toBeGreaterThan(res.body.length);
    }
  });

  it("scripts and style sheets: the Brotli or gzip file made once at build, the file as built otherwise, with Vary and the right length", async () => {
    const html = decoded(await get(`${server.url}/signin`, { "accept-encoding": "gzip" }));
    const assets = [
      /<script src="(\/_next\/static\/[^"]+\.js)"/.exec(html)?.[1],
      /<link rel="stylesheet" href="(\/_next\/static\/[^"]+\.css)"/.exec(html)?.[1],
    ];
    const build = fileURLToPath(new URL("../../.next/", import.meta.url));
    for (const asset of assets) {
      expect(asset).toBeTruthy();
      const file = `${build}${asset!.slice("/_next/".length)}`;
      const original = readFileSync(file);
      // Made by the build step (lib/server/build.ts), not by the request.
      expect(existsSync(`${file}.br`), asset).toBe(true);
      expect(existsSync(`${file}.gz`), asset).toBe(true);
      for (const [accept, encoding, sibling] of [
        ["gzip, deflate, br, zstd", "br", `${file}.br`],
        ["gzip", "gzip", `${file}.gz`],
        ["br;q=0, gzip", "gzip", `${file}.gz`],
        ["identity", undefined, file],
        ["", undefined, file],
      ] as const) {
        const res = await get(`${server.url}${asset}`, accept ? { "accept-encoding": accept } : {});
        expect(res.status, `${asset} ${accept}`).toBe(200);
        expect(res.headers["content-encoding"], `${asset} ${accept}`).toBe(encoding);
        expect(varies(res), `${asset} ${accept}`).toBe(true);
        expect(res.headers["cache-control"], asset).toContain("immutable");
        expect(res.headers["content-type"], asset).toMatch(asset!.endsWith(".js") ? /javascript/ : /^text\/css/);
        expect(Number(res.headers["content-length"]), `${asset} ${accept}`).toBe(res.body.length);
        // The precompressed file itself, byte for byte, and it unpacks to the file as built.
        expect(res.body.equals(readFileSync(sibling)), `${asset} ${accept}`).toBe(true);
        expect(decoded(res) === original.toString(), `${asset} ${accept}`).toBe(true);
        if (encoding) expect(res.body.length, `${asset} ${accept}`).toBeLessThan(original.length);
        // Each variant has its own validator; asking again with it gets a 304 without a body.
        const again = await get(`${server.url}${asset}`, {
          ...(accept ? { "accept-encoding": accept } : {}),
          "if-none-match": String(res.headers.etag),
        });
        expect(again.status, `${asset} ${accept}`).toBe(304);
        expect(again.body.length).toBe(0);
      }
    }
  });
});
