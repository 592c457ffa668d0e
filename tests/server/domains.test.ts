/**
 * Domains (issue 40 §1, docs/domains.md) over real HTTP: one server with DOMAINS set, asked
 * with several Host values. Uploads choose a domain with `x-mediahost-domain` (400 for one
 * not offered), the links of the reply and the share page's tags are built on it, each
 * domain serves what it lists, any other name gets 404, and a robot's cached page is
 * never replayed on another name.
 */
import { request as httpRequest } from "node:http";
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture } from "../support/media";
import { startTestServer, type TestServer } from "../support/server";
import { onServerDatabase, serverApp, serverSession, serverUser } from "../support/server-accounts";

const DISCORD_UA = "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)";
const BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

let server: TestServer;
let key: string;
let relayKey: string;
let png: Buffer;

beforeAll(async () => {
  server = await startTestServer({
    PUBLIC_URL: "https://media.example",
    DOMAINS: "img.example, http://files.example:8080=files, go.example=links, pages.example=pages",
  });
  const user = await serverUser(server, "domainer");
  key = (await serverApp(server, "domainer", "ShareX")).key;
  relayKey = (await serverSession(server, "domainer")).key;
  // A proven link domain of the account's own (docs/link-domains.md).
  await onServerDatabase(server, async () => {
    const { db } = await import("@/lib/db/client");
    await db().user.update({
      where: { id: user.id },
      data: { linkDomain: "mine.example", linkDomainVerifiedAt: new Date(), provenLinkDomain: "mine.example" },
    });
  });
  png = await readFile(await fixture("pngPlain"));
}, 240_000);
afterAll(async () => {
  await server?.stop();
});

/** A GET (or other method) with the Host given, as node:http sends it (fetch sends its own). */
function ask(
  path: string,
  host: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(path, server.url);
  return new Promise((done, fail) => {
    const req = httpRequest(url, { headers: { host, "user-agent": BROWSER_UA, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", fail);
    req.end();
  });
}

async function upload(domain?: string): Promise<Response> {
  const body = new FormData();
  body.append("file", new Blob([new Uint8Array(png)], { type: "image/png" }), "a.png");
  const headers: Record<string, string> = { "api-key": key, "post-privacy": "unlisted" };
  if (domain !== undefined) headers["x-mediahost-domain"] = domain;
  return fetch(`${server.url}/api/upload`, { method: "POST", body, headers });
}

type Uploaded = { url: string; post: { code: string; url: string; files: { url: string }[] } };

describe("choosing a domain", () => {
  it("builds the reply's share link and file links on the domain the upload names", async () => {
    const res = await upload("IMG.example");
    expect(res.status).toBe(200);
    const { url, post } = (await res.json()) as Uploaded;
    expect(post.url).toBe(`https://img.example/p/${post.code}`);
    expect(url).toMatch(/^https:\/\/img\.example\/cdn\//);
    expect(post.files[0].url).toMatch(/^https:\/\/img\.example\/cdn\//);
    // Read again later, the post keeps its domain.
    const again = (await (await fetch(`${server.url}/api/posts/${post.code}`, { headers: { "api-key": key } })).json()) as Uploaded;
    expect(again.post.url).toBe(post.url);
  });

  it("uses each link kind only where the domain serves it: a files domain gives file links, the share page stays", async () => {
    const { url, post } = (await (await upload("files.example")).json()) as Uploaded;
    expect(url).toMatch(/^http:\/\/files\.example:8080\/cdn\//);
    expect(post.url).toBe(`https://mine.example/${post.code}`);
  });

  it("offers the account's proven link domain and the instance's own name", async () => {
    const linked = (await (await upload("mine.example")).json()) as Uploaded;
    expect(linked.post.url).toBe(`https://mine.example/${linked.post.code}`);
    const main = (await (await upload("media.example")).json()) as Uploaded;
    expect(main.post.url).toBe(`https://media.example/p/${main.post.code}`);
    expect(main.url).toMatch(/^https:\/\/media\.example\/cdn\//);
  });

  it("answers 400 naming the header for a domain not offered, before storing anything", async () => {
    for (const bad of ["evil.example", "not a name"]) {
      const res = await upload(bad);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { type: string; message: string } };
      expect(body.error.type).toBe("invalid_request");
      expect(body.error.message).toContain("x-mediahost-domain");
    }
  });

  it("lists the offered domains (GET /domains) and keeps a default domain set through PATCH /users/@me", async () => {
    const list = (await (await fetch(`${server.url}/api/domains`, { headers: { "api-key": key } })).json()) as {
      domains: { name: string; kind: string; serves: string[]; default: boolean }[];
      default_domain: string | null;
    };
    expect(list.domains.map((d) => [d.name, d.kind, d.serves.join("+")])).toEqual([
      ["media.example", "main", "pages+files+links"],
      ["img.example", "instance", "pages+files+links"],
      ["files.example", "instance", "files"],
      ["go.example", "instance", "links"],
      ["pages.example", "instance", "pages"],
      ["mine.example", "link_domain", "pages"],
    ]);
    expect(list.default_domain).toBeNull();
    expect(list.domains.find((d) => d.default)?.name).toBe("mine.example");

    const patch = (value: unknown) =>
      fetch(`${server.url}/relay/users/@me`, {
        method: "PATCH",
        headers: { "relay-key": relayKey, "content-type": "application/json" },
        body: JSON.stringify({ default_domain: value }),
      });
    const refused = await patch("evil.example");
    expect(refused.status).toBe(400);
    const saved = await patch("pages.example");
    expect(saved.status).toBe(200);
    expect(((await saved.json()) as { user: { default_domain: string } }).user.default_domain).toBe("pages.example");
    const { post, url } = (await (await upload()).json()) as Uploaded;
    expect(post.url).toBe(`https://pages.example/p/${post.code}`);
    // pages.example serves no files: the file links stay on CDN_URL.
    expect(url).toMatch(/^https:\/\/media\.example\/cdn\//);
    expect((await patch(null)).status).toBe(200);
  });
});

describe("the host check", () => {
  let code: string;
  let filePath: string;
  let linkCode: string;
  beforeAll(async () => {
    const { url, post } = (await (await upload("img.example")).json()) as Uploaded;
    code = post.code;
    filePath = new URL(url).pathname;
    const link = await fetch(`${server.url}/api/links`, {
      method: "POST",
      headers: { "api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ url: "https://example.org/target" }),
    });
    expect(link.status).toBe(200);
    linkCode = ((await link.json()) as { link: { code: string } }).link.code;
  });

  it("refuses every path on a name that is not the instance's, except the health check", async () => {
    for (const path of [`/p/${code}`, filePath, `/s/${linkCode}`, `/api/posts/${code}`, "/", "/dashboard"]) {
      const res = await ask(path, "evil.example");
      expect(res.status, path).toBe(404);
      expect(JSON.parse(res.body).error.type).toBe("not_found");
    }
    expect((await ask("/healthz", "evil.example")).status).toBe(200);
  });

  it("serves everything on the instance's own names: PUBLIC_URL's host and loopback", async () => {
    for (const host of ["media.example", "127.0.0.1", "localhost:3000"]) {
      expect((await ask(`/p/${code}`, host)).status, host).toBe(200);
      expect((await ask(`/api/posts/${code}`, host, { "api-key": key })).status, host).toBe(200);
    }
  });

  it("serves on each listed domain what it lists, and 404 for the rest", async () => {
    const cases: [string, string, number][] = [
      ["img.example", `/p/${code}`, 200],
      ["img.example", filePath, 200],
      ["img.example", `/api/posts/${code}`, 401],
      ["files.example:8080", filePath, 200],
      ["files.example:8080", `/p/${code}`, 404],
      ["go.example", `/s/${linkCode}`, 302],
      ["go.example", filePath, 404],
      ["pages.example", `/p/${code}`, 200],
      ["pages.example", `/oembed?url=${encodeURIComponent(`https://img.example/p/${code}`)}`, 200],
      ["pages.example", filePath, 404],
      ["pages.example", "/dashboard", 404],
      ["pages.example", `/api/posts/${code}`, 404],
    ];
    for (const [host, path, status] of cases) expect((await ask(path, host)).status, `${host} ${path}`).toBe(status);
  });

  it("serves the account's proven link domain as before (its /{code} share page)", async () => {
    const res = await ask(`/${code}`, "mine.example");
    expect(res.status).toBe(200);
    expect(res.body).toContain(`https://img.example/p/${code}`);
    expect((await ask(`/${code}`, "other-link.example")).status).toBe(404);
  });

  it("builds og:url and the oEmbed discovery link on the post's domain", async () => {
    const page = await ask(`/p/${code}`, "pages.example", { "user-agent": DISCORD_UA });
    expect(page.body).toContain(`<meta property="og:url" content="https://img.example/p/${code}"`);
    expect(page.body).toContain(`https://img.example/oembed?url=${encodeURIComponent(`https://img.example/p/${code}`)}`);
  });

  it("never replays a robot's page cached on one name for another", async () => {
    const first = await ask(`/p/${code}`, "img.example", { "user-agent": DISCORD_UA });
    expect(first.status).toBe(200);
    const again = await ask(`/p/${code}`, "img.example", { "user-agent": DISCORD_UA });
    expect(again.headers["x-mediahost-cache"]).toBe("hit");
    // The same page asked on a name that does not serve pages: refused, cache or not.
    expect((await ask(`/p/${code}`, "files.example:8080", { "user-agent": DISCORD_UA })).status).toBe(404);
    const other = await ask(`/p/${code}`, "pages.example:443", { "user-agent": DISCORD_UA });
    expect(other.status).toBe(200);
    expect(other.headers["x-mediahost-cache"]).toBeUndefined();
  });
});
