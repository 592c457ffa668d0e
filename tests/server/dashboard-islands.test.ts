/**
 * The dashboard's gallery and settings without Next's runtime (lib/server/dashboard-islands.ts,
 * docs/dashboard-scripts.md): the rewrite on its own, the build's manifest, then a signed-in
 * browser's full loads through the real production server.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { rawGet } from "../support/raw-get";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "@/lib/crypto/password";
import { withIslands } from "@/lib/server/dashboard-islands";
import { manifestOf, readIslandsManifest } from "@/lib/server/islands-build";
import { freePort, startTestServer, type TestServer } from "../support/server";
import { onServerDatabase, serverUser } from "../support/server-accounts";

const NEXT_PAGE = [
  '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"/>',
  '<link rel="stylesheet" href="/_next/static/chunks/a.css" data-precedence="next"/>',
  '<link rel="preload" as="script" fetchPriority="low" href="/_next/static/chunks/webpack.js"/>',
  '<link rel="manifest" href="/manifest.webmanifest"/>',
  '<script src="/_next/static/chunks/main.js" async=""></script></head>',
  '<body><div data-island="gallery"><div class="space-y-6"><h1>Gallery</h1></div></div>',
  '<script type="application/json" data-island-props="gallery">{"accepted":"media"}</script>',
  '<script nonce="abc">self.__next_f.push([1,"payload"])</script></body></html>',
].join("");
const MANIFEST = { gallery: ["/_next/static/islands/chunk-A.js", "/_next/static/islands/gallery-B.js"] };

describe("withIslands", () => {
  it("cuts Next's scripts and preloads, keeps the props and the manifest link, adds the island's module scripts with the nonce", () => {
    const html = withIslands(NEXT_PAGE, "abc", MANIFEST)!;
    expect(html).not.toContain("/_next/static/chunks/main.js");
    expect(html).not.toContain("webpack.js");
    expect(html).not.toContain("__next_f");
    expect(html).toContain('<script type="application/json" data-island-props="gallery">{"accepted":"media"}</script>');
    expect(html).toContain('<link rel="manifest" href="/manifest.webmanifest"/>');
    const scripts =
      '<script type="module" src="/_next/static/islands/chunk-A.js" nonce="abc"></script>' +
      '<script type="module" src="/_next/static/islands/gallery-B.js" nonce="abc"></script></head>';
    expect(html).toContain(scripts);
    expect(html).toContain('<div data-island="gallery"><div class="space-y-6"><h1>Gallery</h1></div></div>');
  });

  it("leaves the page to Next without one known island or without the build's manifest", () => {
    expect(withIslands(NEXT_PAGE, "abc", null)).toBeNull();
    expect(withIslands(NEXT_PAGE, "abc", { settings: ["/_next/static/islands/settings-C.js"] })).toBeNull();
    expect(withIslands(NEXT_PAGE.replace('data-island="gallery"', 'data-island="unknown"'), "abc", MANIFEST)).toBeNull();
    expect(withIslands(NEXT_PAGE.replace('data-island="gallery"', ""), "abc", MANIFEST)).toBeNull();
    const two = NEXT_PAGE.replace("<h1>", '<div data-island="settings"></div><h1>');
    expect(withIslands(two, "abc", { ...MANIFEST, settings: ["/_next/static/islands/settings-C.js"] })).toBeNull();
  });
});

describe("the build's manifest", () => {
  it("lists each entry's static imports first, not the chunks it loads on use", () => {
    const root = "/app";
    const manifest = manifestOf(root, {
      outputs: {
        ".next/static/islands/gallery-G.js": {
          entryPoint: "components/dashboard/islands/gallery.tsx",
          imports: [
            { path: ".next/static/islands/chunk-R.js", kind: "import-statement" },
            { path: ".next/static/islands/chunk-E.js", kind: "dynamic-import" },
          ],
        },
        ".next/static/islands/chunk-R.js": { imports: [{ path: ".next/static/islands/chunk-H.js", kind: "import-statement" }] },
        ".next/static/islands/chunk-H.js": { imports: [] },
        ".next/static/islands/chunk-E.js": { imports: [{ path: ".next/static/islands/chunk-R.js", kind: "import-statement" }] },
      },
    });
    expect(manifest).toEqual({
      gallery: ["/_next/static/islands/chunk-H.js", "/_next/static/islands/chunk-R.js", "/_next/static/islands/gallery-G.js"],
    });
  });

  it("is not read when a script it names is missing (the page then keeps Next's runtime)", () => {
    const root = mkdtempSync(join(tmpdir(), "islands-manifest-"));
    mkdirSync(join(root, ".next", "static", "islands"), { recursive: true });
    writeFileSync(join(root, ".next", "islands-manifest.json"), JSON.stringify(MANIFEST));
    writeFileSync(join(root, ".next", "static", "islands", "chunk-A.js"), "");
    expect(readIslandsManifest(root)).toBeNull();
    writeFileSync(join(root, ".next", "static", "islands", "gallery-B.js"), "");
    expect(readIslandsManifest(root)).toEqual(MANIFEST);
    expect(readIslandsManifest(join(root, "nowhere"))).toBeNull();
  });
});

const get = rawGet;

const PASSWORD = "correct horse battery";

/** next-auth's credentials sign-in, as the sign-in form does it: the session cookie. */
async function signIn(base: string, login: string): Promise<string> {
  const csrf = await fetch(`${base}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const jar = csrf.headers.getSetCookie().map((c) => c.split(";")[0]);
  const res = await fetch(`${base}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.join("; ") },
    body: new URLSearchParams({ login, password: PASSWORD, csrfToken, callbackUrl: `${base}/dashboard`, json: "true" }),
  });
  return [...jar, ...res.headers.getSetCookie().map((c) => c.split(";")[0])].join("; ");
}

describe("the gallery and settings through the production server", () => {
  let server: TestServer;
  let cookie: string;
  beforeAll(async () => {
    const port = await freePort();
    server = await startTestServer({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
    const user = await serverUser(server, "island_user");
    const passwordHash = await hashPassword(PASSWORD);
    await onServerDatabase(server, async () => {
      const { db } = await import("@/lib/db/client");
      await db().user.update({ where: { id: user.id }, data: { passwordHash } });
    });
    cookie = await signIn(server.url, "island_user");
    expect(cookie).toMatch(/session-token=/);
  }, 180_000);
  afterAll(async () => {
    if (server) await server.stop();
  });

  for (const [path, island] of [
    ["/dashboard", "gallery"],
    ["/dashboard/settings", "settings"],
  ] as const) {
    it(`${path}: a full load carries the ${island} island's scripts, none of Next's, and its props`, async () => {
      const page = await get(`${server.url}${path}`, { cookie, "accept-encoding": "br" });
      expect(page.status).toBe(200);
      expect(page.headers["content-encoding"]).toBe("br");
      const html = brotliDecompressSync(page.body).toString();
      const sources = [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]);
      expect(sources.length).toBeGreaterThan(0);
      for (const src of sources) expect(src).toMatch(/^\/_next\/static\/islands\/[\w-]+\.js$/);
      expect(sources.at(-1)).toMatch(new RegExp(`/${island}-`));
      expect(html).not.toContain("self.__next_f");
      expect(html).not.toMatch(/rel="(?:modulepreload|preload)"[^>]*as="script"/);
      const nonce = /'nonce-([^']+)'/.exec(String(page.headers["content-security-policy"]))?.[1];
      expect(html).toContain(`<script type="module" src="${sources[0]}" nonce="${nonce}">`);
      const props = new RegExp(`<script type="application/json" data-island-props="${island}">([^<]*)</script>`).exec(html);
      expect(JSON.parse(props![1])).toBeTypeOf("object");
      // The installable app's manifest stays (the share pages drop theirs).
      expect(html).toContain('rel="manifest"');
      // React's Link header preloaded the sheet, which is inline now: not fetched a second time.
      expect(html).toMatch(/<style nonce="[^"]+" data-href="\/_next\/static\/[^"]+\.css">/);
      expect(String(page.headers.link ?? "")).not.toMatch(/\.css|as="script"/);
      for (const src of sources) {
        const script = await get(`${server.url}${src}`, { "accept-encoding": "br" });
        expect(script.status, src).toBe(200);
        expect(script.headers["content-encoding"], src).toBe("br");
        expect(script.headers["cache-control"], src).toBe("public, max-age=31536000, immutable");
      }
    });
  }

  it("a client navigation (an RSC request) and a signed-out visit keep Next's path", async () => {
    // (Next answers a bare RSC request with a redirect to its cache-busting `_rsc` address;
    // tests/e2e/dashboard-islands.spec.ts navigates for real.)
    const rsc = await get(`${server.url}/dashboard`, { cookie, rsc: "1" });
    expect(rsc.body.toString()).not.toContain("/_next/static/islands/");
    expect(String(rsc.headers["content-type"])).not.toMatch(/text\/html/);
    const other = await get(`${server.url}/dashboard/folders`, { cookie });
    expect(other.body.toString()).toContain("/_next/static/chunks/");
    const signedOut = await get(`${server.url}/dashboard`, {});
    expect(signedOut.status).toBeGreaterThanOrEqual(300);
    expect(signedOut.status).toBeLessThan(400);
  });
});
