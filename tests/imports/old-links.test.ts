/**
 * The rules of old links (docs/migrate.md, "Old links"), on the test database: an old host's
 * paths first, the instance's own host only where this service has no page, private and
 * gated posts never raw; and the History.json reader across read chunks.
 */
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { forgetOldHosts, OWN_SEGMENTS, resolveOldLink } from "@/lib/imports/old-links";
import { historyObjects } from "@/lib/imports/sharex";
import { useTestDatabase } from "../support/db";
import { createTestPost, createTestUser } from "../support/fixtures";
import { useScratchDir } from "../support/media";

useTestDatabase();
const scratch = useScratchDir();

describe("OWN_SEGMENTS", () => {
  it("names every top-level route of app/, so no old path shadows one of this service's pages on its own host", () => {
    const entries = readdirSync(join(import.meta.dirname, "../../app"));
    for (const entry of entries) {
      if (/^(layout|not-found|globals)\./.test(entry)) continue;
      const segment = entry === "page.tsx" ? "" : entry === "manifest.ts" ? "manifest.webmanifest" : entry;
      expect(OWN_SEGMENTS.has(segment), `app/${entry}`).toBe(true);
    }
  });
});

describe("resolveOldLink", () => {
  beforeEach(() => forgetOldHosts());

  async function imported(privacy: "unlisted" | "private", path: string, target: "file" | "page", host = "old.example") {
    const user = await createTestUser();
    const post = await createTestPost(user.id, { privacy });
    await db().importRedirect.create({ data: { host, path, target, postId: post.id } });
    await db().importHost.upsert({ where: { host }, create: { host, source: "test" }, update: {} });
    return post;
  }

  it("answers nothing at all while no import recorded a host", async () => {
    expect(await resolveOldLink("old.example", "/u/a.png")).toBeNull();
  });

  it("serves an old raw path of an open post as its file, on the old host and (outside own segments) on any host", async () => {
    const post = await imported("unlisted", "/raw/a b.png", "file");
    const expected = { kind: "file", cdnPath: `/cdn/${post.code}/${post.names[0]}` };
    expect(await resolveOldLink("OLD.example:443", "/raw/a%20b.png")).toEqual(expected);
    expect(await resolveOldLink("media.example", "/raw/a%20b.png")).toEqual(expected);
  });

  it("leaves the service's own segments alone except on the old host", async () => {
    const post = await imported("unlisted", "/u/alice", "file");
    expect(await resolveOldLink("media.example", "/u/alice")).toBeNull();
    expect(await resolveOldLink("old.example", "/u/alice")).toEqual({ kind: "file", cdnPath: `/cdn/${post.code}/${post.names[0]}` });
    expect(await resolveOldLink("old.example", "/u/bob")).toBeNull();
  });

  it("sends a private post's old raw path to its share page, never its bytes", async () => {
    const post = await imported("private", "/r/x.png", "file");
    const answer = await resolveOldLink("old.example", "/r/x.png");
    expect(answer).toEqual({ kind: "redirect", location: expect.stringMatching(new RegExp(`/p/${post.code}$`)) });
  });

  it("a short link's old path leads to the short link", async () => {
    const user = await createTestUser();
    const link = await db().shortLink.create({ data: { code: "keep1", userId: user.id, url: "https://example.com/" } });
    await db().importRedirect.create({ data: { host: "old.example", path: "/go/keep1", target: "link", shortLinkId: link.id } });
    await db().importHost.upsert({ where: { host: "old.example" }, create: { host: "old.example", source: "test" }, update: {} });
    expect(await resolveOldLink("old.example", "/go/keep1")).toEqual({ kind: "redirect", location: expect.stringMatching(/\/s\/keep1$/) });
  });
});

describe("historyObjects", () => {
  it("reads thousands of appended objects across read chunks, with braces and quotes inside strings", async () => {
    const path = scratch("History.json");
    const items = Array.from({ length: 3000 }, (_, i) =>
      JSON.stringify({ FileName: `{odd} "name" ${i} \\ }`, URL: `https://x/${i}` }, null, 2),
    );
    writeFileSync(path, items.join(",\r\n"));
    let n = 0;
    for await (const object of historyObjects(path)) {
      expect(object).toEqual({ FileName: `{odd} "name" ${n} \\ }`, URL: `https://x/${n}` });
      n++;
    }
    expect(n).toBe(3000);
  });

  it("reads a bracketed array too, and names a cut-short last object", async () => {
    const path = scratch("History2.json");
    writeFileSync(path, '[{"a":1},{"b":2}]\n,{"c":');
    const out: unknown[] = [];
    for await (const object of historyObjects(path)) out.push(object instanceof Error ? "error" : object);
    expect(out).toEqual([{ a: 1 }, { b: 2 }, "error"]);
  });
});
