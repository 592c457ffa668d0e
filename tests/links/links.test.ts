/** Short links (docs/short-links.md): the API, the /s/{code} redirect, limits under concurrency, ShareX's shortener. */
import { describe, expect, it } from "vitest";
import { cliActor, listAudit } from "@/lib/audit/log";
import { adminDeleteLink, adminLinks } from "@/lib/admin/links";
import { sharexLinksConfig } from "@/lib/apps/client-config";
import { runAdmin } from "@/lib/cli/admin";
import { env, resetEnv } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { checkTarget, followLink } from "@/lib/links/links";
import { BUCKETS } from "@/lib/ratelimit";
import { shortLinkResponse } from "@/lib/web/short-link";
import { useCounterStore } from "../support/counters";
import { useTestDatabase } from "../support/db";
import { createTestTeam, createTestUser } from "../support/fixtures";
import { api, relay } from "../support/http";

useTestDatabase();
useCounterStore({ perTest: true });

const create = (key: string, body: unknown) => api("/links", { method: "POST", key, body });

/** GET /s/{code} as a browser from `ip` sends it. */
async function visit(code: string, ip = "203.0.113.9"): Promise<{ status: number; location: string | null }> {
  const res = await shortLinkResponse(code, new Headers({ "x-client-ip": ip }));
  return { status: res.status, location: res.headers.get("location") };
}

describe("POST /links", () => {
  it("shortens a URL: the reply's short_url is PUBLIC_URL/s/{code} and redirects with 302", async () => {
    const user = await createTestUser();
    const reply = await create(user.apiKey, { url: "https://example.com/a?b=1#c" });
    expect(reply.status, reply.text).toBe(200);
    const { link } = reply.body;
    expect(link.code).toMatch(/^[A-Za-z0-9]{7}$/);
    expect(link).toMatchObject({ url: "https://example.com/a?b=1#c", click_count: 0, max_clicks: null, expires_at: null, active: true });
    expect(link.short_url).toBe(`${env().PUBLIC_URL}/s/${link.code}`);
    expect(reply.headers.get("x-ratelimit-limit")).toBe(String(BUCKETS.links_write.limit));
    expect(await visit(link.code)).toEqual({ status: 302, location: "https://example.com/a?b=1#c" });
  });

  it("takes a chosen code, refuses a taken or malformed one", async () => {
    const user = await createTestUser();
    expect((await create(user.apiKey, { url: "https://example.com/", code: "my-Link_1" })).body.link.code).toBe("my-Link_1");
    const taken = await create(user.apiKey, { url: "https://example.org/", code: "my-Link_1" });
    expect(taken.status).toBe(400);
    expect(taken.body.error.message).toContain("taken");
    for (const code of ["ab", "a".repeat(33), "has space", "a/b", "ü-code"]) {
      const bad = await create(user.apiKey, { url: "https://example.com/", code });
      expect(bad.status, code).toBe(400);
      expect(bad.body.error.type).toBe("invalid_request");
    }
  });

  it("accepts only http and https targets of at most 2048 characters, never its own short links", async () => {
    const user = await createTestUser();
    const base = env().PUBLIC_URL;
    const refused = [
      "javascript:alert(1)",
      "data:text/html,hi",
      "ftp://example.com/f",
      "file:///etc/passwd",
      "not a url",
      "",
      `https://example.com/${"a".repeat(2048)}`,
      `${base}/s/abcdefg`,
      `${base}/S/abcdefg`,
      `${base}//s/abcdefg`,
      `${base}/%73/abcdefg`,
    ];
    for (const url of refused) {
      const reply = await create(user.apiKey, { url });
      expect(reply.status, url).toBe(400);
      expect(reply.body.error.type).toBe("invalid_request");
    }
    // Other pages of this service are fine targets.
    expect((await create(user.apiKey, { url: `${base}/p/abcdefghij` })).status).toBe(200);
    const missing = await create(user.apiKey, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain("url");
  });

  it("refuses loops through SHORT_URL's host too", () => {
    const saved = process.env.SHORT_URL;
    try {
      process.env.SHORT_URL = "https://sho.rt/";
      resetEnv();
      expect(env().shortUrl).toBe("https://sho.rt");
      expect(() => checkTarget("https://sho.rt/abc1234")).toThrow(/short link/);
      expect(() => checkTarget("https://SHO.RT./x")).toThrow(/short link/);
      expect(checkTarget("https://example.com/sho.rt")).toBe("https://example.com/sho.rt");
    } finally {
      if (saved === undefined) delete process.env.SHORT_URL;
      else process.env.SHORT_URL = saved;
      resetEnv();
    }
  });

  it("short_url follows SHORT_URL", async () => {
    const saved = process.env.SHORT_URL;
    try {
      process.env.SHORT_URL = "https://go.example/l/";
      resetEnv();
      const user = await createTestUser();
      const reply = await create(user.apiKey, { url: "https://example.com/" });
      expect(reply.body.link.short_url).toBe(`https://go.example/l/${reply.body.link.code}`);
      expect((await create(user.apiKey, { url: "https://go.example/l/abc" })).status).toBe(400);
      expect((await create(user.apiKey, { url: "https://go.example/other" })).status).toBe(200);
    } finally {
      if (saved === undefined) delete process.env.SHORT_URL;
      else process.env.SHORT_URL = saved;
      resetEnv();
    }
  });

  it("validates expires_at and max_clicks", async () => {
    const user = await createTestUser();
    for (const body of [
      { url: "https://example.com/", max_clicks: 0 },
      { url: "https://example.com/", max_clicks: 1.5 },
      { url: "https://example.com/", max_clicks: "3" },
      { url: "https://example.com/", expires_at: "2001-01-01T00:00:00Z" },
      { url: "https://example.com/", expires_at: "tomorrow" },
    ]) {
      const reply = await create(user.apiKey, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
    }
    const ok = await create(user.apiKey, { url: "https://example.com/", expires_at: "1h", max_clicks: 2 });
    expect(ok.body.link.max_clicks).toBe(2);
    expect(Date.parse(ok.body.link.expires_at)).toBeGreaterThan(Date.now());
  });
});

describe("keys", () => {
  it("any personal key creates (an upload-only app key too); listing and deleting need gallery access; team keys get 401", async () => {
    const user = await createTestUser();
    const made = await create(user.uploadOnlyKey, { url: "https://example.com/" });
    expect(made.status, made.text).toBe(200);
    expect((await api("/links", { key: user.uploadOnlyKey })).status).toBe(403);
    expect((await api(`/links/${made.body.link.code}`, { method: "DELETE", key: user.uploadOnlyKey })).status).toBe(403);
    expect((await relay("/links", { method: "POST", key: user.relayKey, body: { url: "https://example.com/r" } })).status).toBe(200);
    expect((await relay("/links", { key: user.relayKey })).body.links).toHaveLength(2);
    const team = await createTestTeam(user.id);
    expect((await create(team.key, { url: "https://example.com/" })).status).toBe(401);
    expect((await api("/links", { key: team.key })).status).toBe(401);
    expect((await api("/links")).status).toBe(401);
  });

  it("a suspended account gets 403 suspended", async () => {
    const user = await createTestUser({ suspended: true });
    const reply = await create(user.apiKey, { url: "https://example.com/" });
    expect(reply.status).toBe(403);
    expect(reply.body.error.type).toBe("suspended");
  });
});

describe("GET /links and DELETE /links/{code}", () => {
  it("pages the caller's links newest first with the posts' cursor rules", async () => {
    const user = await createTestUser();
    const other = await createTestUser();
    await create(other.apiKey, { url: "https://example.com/other" });
    for (let i = 0; i < 5; i++) {
      await db().shortLink.create({
        data: { code: `page-${i}`, userId: user.id, url: `https://example.com/${i}`, createdAt: new Date(Date.UTC(2026, 0, 1 + i)) },
      });
    }
    const first = await api("/links?limit=2", { key: user.apiKey });
    expect(first.status, first.text).toBe(200);
    expect(first.body.links.map((l: { code: string }) => l.code)).toEqual(["page-4", "page-3"]);
    expect(first.body.has_more).toBe(true);
    const second = await api(`/links?limit=2&cursor=${first.body.next_cursor}`, { key: user.apiKey });
    expect(second.body.links.map((l: { code: string }) => l.code)).toEqual(["page-2", "page-1"]);
    const third = await api(`/links?limit=2&cursor=${second.body.next_cursor}`, { key: user.apiKey });
    expect(third.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(third.body.links.map((l: { code: string }) => l.code)).toEqual(["page-0"]);
    // A cursor of another endpoint is refused, as on GET /posts.
    const posts = await api("/posts?limit=1", { key: user.apiKey });
    expect(posts.status).toBe(200);
    const foreign = Buffer.from(JSON.stringify({ v: 1, e: "listPosts", f: "x", t: 1, id: "a" })).toString("base64url");
    expect((await api(`/links?cursor=${foreign}`, { key: user.apiKey })).status).toBe(400);
    expect((await api("/links?limit=0", { key: user.apiKey })).status).toBe(400);
  });

  it("deletes the caller's link (404 from then on); someone else's is not found", async () => {
    const user = await createTestUser();
    const other = await createTestUser();
    const { link } = (await create(user.apiKey, { url: "https://example.com/" })).body;
    expect((await api(`/links/${link.code}`, { method: "DELETE", key: other.apiKey })).status).toBe(404);
    expect(await visit(link.code)).toMatchObject({ status: 302 });
    const reply = await api(`/links/${link.code}`, { method: "DELETE", key: user.apiKey });
    expect(reply.body).toEqual({ code: link.code, deleted: true });
    expect(await visit(link.code)).toEqual({ status: 404, location: null });
    expect((await api(`/links/${link.code}`, { method: "DELETE", key: user.apiKey })).status).toBe(404);
  });
});

describe("/s/{code}", () => {
  it("is 404 once expired, used up, or while the owner is suspended; 404 for unknown and malformed codes", async () => {
    const user = await createTestUser();
    const expired = await db().shortLink.create({
      data: { code: "expired1", userId: user.id, url: "https://example.com/", expiresAt: new Date(Date.now() - 1000) },
    });
    expect(await visit(expired.code)).toEqual({ status: 404, location: null });
    const once = (await create(user.apiKey, { url: "https://example.com/once", max_clicks: 1 })).body.link;
    expect(await visit(once.code)).toEqual({ status: 302, location: "https://example.com/once" });
    expect(await visit(once.code)).toEqual({ status: 404, location: null });
    const listed = (await api("/links", { key: user.apiKey })).body.links.find((l: { code: string }) => l.code === once.code);
    expect(listed).toMatchObject({ click_count: 1, active: false });

    const live = (await create(user.apiKey, { url: "https://example.com/live" })).body.link;
    await db().user.update({ where: { id: user.id }, data: { suspended: true } });
    expect(await visit(live.code)).toEqual({ status: 404, location: null });
    await db().user.update({ where: { id: user.id }, data: { suspended: false } });
    expect(await visit(live.code)).toMatchObject({ status: 302 });

    expect(await visit("nope123")).toEqual({ status: 404, location: null });
    expect(await visit("../../etc")).toEqual({ status: 404, location: null });
    const res = await shortLinkResponse("nope123", new Headers());
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("cache-control")).toContain("no-store");
  });

  it("counts at most 3 clicks per IP per hour on an unlimited link", async () => {
    const user = await createTestUser();
    const { link } = (await create(user.apiKey, { url: "https://example.com/" })).body;
    for (let i = 0; i < 5; i++) expect((await visit(link.code, "192.0.2.1")).status).toBe(302);
    await visit(link.code, "192.0.2.2");
    expect((await db().shortLink.findUniqueOrThrow({ where: { code: link.code } })).clickCount).toBe(4);
  });

  it("max_clicks holds under concurrent clicks: of 40 at once on a 5-click link, exactly 5 redirect", async () => {
    const user = await createTestUser();
    const { link } = (await create(user.apiKey, { url: "https://example.com/limited", max_clicks: 5 })).body;
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => followLink(link.code, `198.51.100.${i}`)));
    expect(results.filter((r) => r === "https://example.com/limited")).toHaveLength(5);
    expect(results.filter((r) => r === null)).toHaveLength(35);
    expect((await db().shortLink.findUniqueOrThrow({ where: { code: link.code } })).clickCount).toBe(5);
  });

  it("goes with its owner: deleting the user deletes the links", async () => {
    const user = await createTestUser();
    const { link } = (await create(user.apiKey, { url: "https://example.com/" })).body;
    await db().user.delete({ where: { id: user.id } });
    expect(await db().shortLink.count({ where: { code: link.code } })).toBe(0);
    expect((await visit(link.code)).status).toBe(404);
  });
});

/** ShareX's request for a URL shortener, as CustomUploaderItem builds it (shared/notes/clients.md). */
function sharexRequest(config: ReturnType<typeof sharexLinksConfig>, input: string) {
  // GetData: the name parser runs on Data first, then {input} is replaced JSON-escaped (JSONEncode, no quotes).
  const data = config.Data.replace(/\{input\}/gi, JSON.stringify(input).slice(1, -1));
  return { method: config.RequestMethod, url: config.RequestURL, headers: { ...config.Headers, "content-type": "application/json" }, data };
}

/** `{json:a.b}` against a JSON reply; missing or null gives "" (ShareX's JSONPath). */
function sharexTemplate(template: string, body: unknown): string {
  return template.replace(/\{json:([^}]+)\}/g, (_, path: string) => {
    let node: unknown = body;
    for (const step of path.split(".")) node = node && typeof node === "object" ? (node as Record<string, unknown>)[step] : undefined;
    return node === undefined || node === null ? "" : String(node);
  });
}

describe("ShareX URL shortener", () => {
  it("is its own custom uploader: POST /links with the URL from {input} in a JSON body", async () => {
    const user = await createTestUser();
    const config = sharexLinksConfig(user.uploadOnlyKey, { appName: "Desk" });
    expect(config).toMatchObject({ DestinationType: "URLShortener", RequestMethod: "POST", Body: "JSON", URL: "{json:link.short_url}" });
    expect(Number(config.Version.split(".")[0])).toBeGreaterThanOrEqual(14);
    expect(config.RequestURL).toBe(`${env().apiUrl}/links`);

    // A URL with quotes, a backslash and template-looking text survives unchanged.
    const input = 'https://example.com/a?q="x"&r=%y\\{json:z}';
    const request = sharexRequest(config, input);
    expect(JSON.parse(request.data)).toEqual({ url: input });
    const reply = await api(new URL(request.url).pathname.replace(/^\/api/, ""), {
      method: request.method,
      headers: request.headers,
      rawBody: request.data,
    });
    expect(reply.status, reply.text).toBe(200);
    const short = sharexTemplate(config.URL, reply.body);
    expect(short).toBe(reply.body.link.short_url);
    const code = short.split("/").pop() as string;
    expect((await visit(code)).location).toBe(new URL(input).href);

    // An error reads through ErrorMessage, never as "URL is empty".
    const bad = await api("/links", { method: "POST", headers: request.headers, rawBody: sharexRequest(config, "ftp://x").data });
    expect(bad.status).toBe(400);
    expect(sharexTemplate(config.ErrorMessage, bad.body)).toMatch(/^invalid_request: /);
  });
});

describe("admin", () => {
  it("`app config --client sharex-links` prints the shortener's .sxcu for the app's current key", async () => {
    const made = await runAdmin(["user", "create", "--username", "linker"]);
    expect(made.exitCode).toBe(0);
    const app = await runAdmin(["app", "create", "--user", "linker", "--name", "Desk"]);
    const { id, key } = app.output as { id: string; key: string };
    const out = await runAdmin(["app", "config", "--app", id, "--key", key, "--client", "sharex-links"]);
    expect(out.exitCode).toBe(0);
    expect(out.output).toEqual(sharexLinksConfig(key, { appName: "Desk" }));
    const wrong = await runAdmin(["app", "config", "--app", id, "--key", "mha_wrong", "--client", "sharex-links"], { log: () => {} });
    expect(wrong.exitCode).toBe(1);
  });

  it("the console lists every user's links and deletes one, with an audit entry", async () => {
    const user = await createTestUser();
    const { link } = (await create(user.apiKey, { url: "https://example.com/admin" })).body;
    const listed = (await adminLinks()).items.find((l) => l.code === link.code);
    expect(listed).toMatchObject({ url: "https://example.com/admin", username: user.username });
    await adminDeleteLink(cliActor(), link.code);
    expect((await visit(link.code)).status).toBe(404);
    const { items } = await listAudit({ limit: 1 });
    expect(items[0]).toMatchObject({ action: "link.delete", targetType: "link", targetId: link.code });
    await expect(adminDeleteLink(cliActor(), link.code)).rejects.toMatchObject({ type: "not_found" });
  });
});
