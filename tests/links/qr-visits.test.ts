/**
 * QR codes of posts and short links, and a link's visits per day and referring host
 * (docs/qr-and-visits.md). The QR images are decoded back with sharp + the `qrcode`
 * package's own matrix, and the visits are counted through the real redirect.
 */
import sharp from "sharp";
import QRCode from "qrcode";
import { describe, expect, it } from "vitest";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { recordVisit, referringHost } from "@/lib/links/visits";
import { shortLinkResponse } from "@/lib/web/short-link";
import { useCounterStore } from "../support/counters";
import { useTestDatabase } from "../support/db";
import { createTestPost, createTestTeam, createTestUser } from "../support/fixtures";
import { api, relay } from "../support/http";

useTestDatabase();
useCounterStore({ perTest: true });

const newLink = async (key: string, body: Record<string, unknown>) => (await api("/links", { method: "POST", key, body })).body.link;
const visit = (code: string, ip: string, referer?: string) =>
  shortLinkResponse(code, new Headers({ "x-client-ip": ip, ...(referer ? { referer } : {}) }));

/** The modules of the code that encodes `text` as the server draws it (error correction M). */
const modulesOf = (text: string) => QRCode.create(text, { errorCorrectionLevel: "M" }).modules;

/**
 * Reads a PNG back into its module grid (4-module quiet zone) and compares it with the
 * matrix of the expected text: the image says exactly that text.
 */
async function pngEncodes(png: Buffer, text: string): Promise<boolean> {
  const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
  const modules = modulesOf(text);
  const count = modules.size + 8;
  const cell = info.width / count;
  for (let row = 0; row < modules.size; row++) {
    for (let col = 0; col < modules.size; col++) {
      const x = Math.floor((col + 4 + 0.5) * cell);
      const y = Math.floor((row + 4 + 0.5) * cell);
      const dark = data[y * info.width + x] < 128;
      if (dark !== !!modules.get(row, col)) return false;
    }
  }
  return true;
}

describe("GET /posts/{code}/qr", () => {
  it("draws the post's share URL as SVG (default) or PNG of the asked size, for anyone who may read it", async () => {
    const owner = await createTestUser();
    const reader = await createTestUser();
    const post = await createTestPost(owner.id, { privacy: "public", viewCount: 3 });
    const url = `${env().shareUrl}/${post.code}`;

    const svg = await api(`/posts/${post.code}/qr`, { key: owner.apiKey });
    expect(svg.status, svg.text).toBe(200);
    expect(svg.headers.get("content-type")).toBe("image/svg+xml");
    expect(svg.headers.get("x-content-type-options")).toBe("nosniff");
    expect(svg.text).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg.text).not.toMatch(/<script/i);
    expect(svg.text).toBe(await QRCode.toString(url, { type: "svg", errorCorrectionLevel: "M", margin: 4, width: 512 }));

    const png = await api(`/posts/${post.code}/qr?format=png&size=300&download=true`, { key: reader.apiKey });
    expect(png.status).toBe(200);
    expect(png.headers.get("content-type")).toBe("image/png");
    expect(png.headers.get("content-disposition")).toBe(`attachment; filename="qr-${post.code}.png"`);
    const bytes = Buffer.from(await (await fetchRaw(post.code, reader.apiKey)).arrayBuffer());
    const meta = await sharp(bytes).metadata();
    expect([meta.width, meta.height]).toEqual([300, 300]);
    expect(await pngEncodes(bytes, url)).toBe(true);
    expect(await pngEncodes(bytes, `${url}x`)).toBe(false);

    // Reading it spends no view, on the API or Relay.
    expect((await relay(`/posts/${post.code}/qr`, { key: reader.relayKey })).status).toBe(200);
    expect((await db().post.findUniqueOrThrow({ where: { code: post.code } })).viewCount).toBe(3);
  });

  it("follows the post's visibility and refuses bad queries with 400", async () => {
    const owner = await createTestUser();
    const stranger = await createTestUser();
    const hidden = await createTestPost(owner.id, { privacy: "private" });
    expect((await api(`/posts/${hidden.code}/qr`, { key: owner.apiKey })).status).toBe(200);
    expect((await api(`/posts/${hidden.code}/qr`, { key: stranger.apiKey })).status).toBe(404);
    expect((await api("/posts/nosuchcode/qr", { key: owner.apiKey })).status).toBe(404);
    // A post behind a share password is its owner's alone, as GET /posts/{code} is.
    const locked = await createTestPost(owner.id, { privacy: "public" });
    await db().post.update({ where: { code: locked.code }, data: { passwordHash: "scrypt$x" } });
    expect((await api(`/posts/${locked.code}/qr`, { key: stranger.apiKey })).status).toBe(404);
    expect((await api(`/posts/${locked.code}`, { key: stranger.apiKey })).status).toBe(404);
    expect((await api(`/posts/${locked.code}/qr`, { key: owner.apiKey })).status).toBe(200);
    // A view-limited post's code spends none of its views.
    const limited = await createTestPost(owner.id, { privacy: "public" });
    await db().post.update({ where: { code: limited.code }, data: { maxViews: 1 } });
    expect((await api(`/posts/${limited.code}/qr`, { key: stranger.apiKey })).status).toBe(200);
    expect((await api(`/posts/${limited.code}/qr`, { key: stranger.apiKey })).status).toBe(200);
    expect((await api(`/posts/${limited.code}`, { key: stranger.apiKey })).status).toBe(200);
    for (const query of ["format=gif", "size=10", "size=5000", "size=abc", "size=", "download=yes"]) {
      const reply = await api(`/posts/${hidden.code}/qr?${query}`, { key: owner.apiKey });
      expect(reply.status, query).toBe(400);
      expect(reply.body.error.type).toBe("invalid_request");
    }
    expect((await api(`/posts/${hidden.code}/qr`)).status).toBe(401);
  });
});

/** The PNG as bytes (the test helper reads replies as text). */
async function fetchRaw(code: string, key: string): Promise<Response> {
  const { dispatcher } = await import("@/lib/routes");
  return dispatcher("api")(
    new Request(`http://localhost/api/posts/${code}/qr?format=png&size=300`, {
      headers: { "api-key": key, "x-client-ip": "198.51.100.9" },
    }),
  );
}

describe("GET /links/{code}/qr", () => {
  it("draws the link object's short_url; someone else's link is 404; app keys need gallery access", async () => {
    const user = await createTestUser();
    const other = await createTestUser();
    const link = await newLink(user.apiKey, { url: "https://example.com/menu" });
    const svg = await api(`/links/${link.code}/qr`, { key: user.apiKey });
    expect(svg.status, svg.text).toBe(200);
    expect(svg.text).toBe(await QRCode.toString(link.short_url, { type: "svg", errorCorrectionLevel: "M", margin: 4, width: 512 }));
    expect((await relay(`/links/${link.code}/qr?format=png`, { key: user.relayKey })).headers.get("content-type")).toBe("image/png");
    expect((await api(`/links/${link.code}/qr`, { key: other.apiKey })).status).toBe(404);
    expect((await api(`/links/${link.code}/qr`, { key: user.uploadOnlyKey })).status).toBe(403);
    const team = await createTestTeam(user.id);
    expect((await api(`/links/${link.code}/qr`, { key: team.key })).status).toBe(401);
  });
});

describe("short-link visits", () => {
  it("counts each counted click per day and referring host, keeps no address, and adds up to click_count", async () => {
    const user = await createTestUser();
    const link = await newLink(user.apiKey, { url: "https://example.com/" });
    expect((await visit(link.code, "203.0.113.1", "https://News.Example.org:8443/story?id=7")).status).toBe(302);
    expect((await visit(link.code, "203.0.113.2", "https://news.example.org/other")).status).toBe(302);
    expect((await visit(link.code, "203.0.113.3")).status).toBe(302);
    expect((await visit(link.code, "203.0.113.4", "android-app://com.example")).status).toBe(302);
    // The fourth visit from one address within the hour redirects but is not a click, nor a visit.
    for (let i = 0; i < 4; i++) await visit(link.code, "203.0.113.9", "https://chat.example/");

    const reply = await api(`/links/${link.code}/visits?range=7d`, { key: user.apiKey });
    expect(reply.status, reply.text).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(reply.body).toMatchObject({ code: link.code, range: "7d", to: today, visit_count: 7 });
    expect(reply.body.days).toHaveLength(7);
    expect(reply.body.days.at(-1)).toEqual({ day: today, visit_count: 7 });
    expect(reply.body.days.slice(0, 6).every((d: { visit_count: number }) => d.visit_count === 0)).toBe(true);
    expect(reply.body.referrers).toEqual([
      { host: "chat.example", visit_count: 3 },
      { host: null, visit_count: 2 },
      { host: "news.example.org", visit_count: 2 },
    ]);
    const clicks = (await api("/links", { key: user.apiKey })).body.links[0].click_count;
    expect(clicks).toBe(7);

    // What is stored: a day, a host and a count per row, and nothing that names a visitor.
    const rows = await db().linkVisitDay.findMany({ where: { link: { code: link.code } } });
    expect(JSON.stringify(rows)).not.toMatch(/203\.0\.113|story|id=7/);
    expect(Object.keys(rows[0]).sort()).toEqual(["day", "host", "linkId", "visits"]);
  });

  it("a limited link counts a visit only for a spent click; older days fall in their own buckets", async () => {
    const user = await createTestUser();
    const link = await newLink(user.apiKey, { url: "https://example.com/", max_clicks: 2 });
    for (let i = 0; i < 4; i++) await visit(link.code, `203.0.113.${i + 1}`, "https://a.example/");
    const row = await db().shortLink.findUniqueOrThrow({ where: { code: link.code } });
    const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000);
    await recordVisit(row.id, "b.example", threeDaysAgo);
    await recordVisit(row.id, "b.example", threeDaysAgo);

    const reply = await api(`/links/${link.code}/visits`, { key: user.apiKey });
    expect(reply.body.range).toBe("30d");
    expect(reply.body.days).toHaveLength(30);
    expect(reply.body.visit_count).toBe(4);
    const byDay = Object.fromEntries(reply.body.days.map((d: { day: string; visit_count: number }) => [d.day, d.visit_count]));
    expect(byDay[threeDaysAgo.toISOString().slice(0, 10)]).toBe(2);
    expect(byDay[new Date().toISOString().slice(0, 10)]).toBe(2);
    expect(reply.body.referrers).toEqual([
      { host: "a.example", visit_count: 2 },
      { host: "b.example", visit_count: 2 },
    ]);
  });

  it("is the owner's alone; bad ranges are 400; deleting the link deletes its visits", async () => {
    const user = await createTestUser();
    const other = await createTestUser();
    const link = await newLink(user.apiKey, { url: "https://example.com/" });
    await visit(link.code, "203.0.113.1", "https://a.example/");
    expect((await api(`/links/${link.code}/visits`, { key: other.apiKey })).status).toBe(404);
    expect((await api(`/links/${link.code}/visits`, { key: user.uploadOnlyKey })).status).toBe(403);
    expect((await relay(`/links/${link.code}/visits`, { key: user.relayKey })).body.visit_count).toBe(1);
    for (const range of ["24h", "1y", "", "30D"]) {
      const reply = await api(`/links/${link.code}/visits?range=${range}`, { key: user.apiKey });
      expect(reply.status, range).toBe(400);
      expect(reply.body.error.type).toBe("invalid_request");
    }
    const { id } = await db().shortLink.findUniqueOrThrow({ where: { code: link.code } });
    expect(await db().linkVisitDay.count({ where: { linkId: id } })).toBe(1);
    await api(`/links/${link.code}`, { method: "DELETE", key: user.apiKey });
    expect(await db().linkVisitDay.count({ where: { linkId: id } })).toBe(0);
    // A visit recorded for a link deleted meanwhile is no error and leaves nothing.
    await recordVisit(id, "a.example");
    expect(await db().linkVisitDay.count({ where: { linkId: id } })).toBe(0);
  });

  it("reads only the host of an http(s) Referer", () => {
    expect(referringHost("https://WWW.Example.com:444/a?b#c")).toBe("www.example.com");
    expect(referringHost("http://[::1]:8080/")).toBe("[::1]");
    expect(referringHost(null)).toBe("");
    expect(referringHost("")).toBe("");
    expect(referringHost("not a url")).toBe("");
    expect(referringHost("ftp://files.example/")).toBe("");
    expect(referringHost(`https://${"a".repeat(250)}.example/`)).toBe("");
  });
});
