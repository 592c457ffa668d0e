/**
 * `admin import sharex-history` (docs/migrate.md, "ShareX"): a History.json written as ShareX
 * appends it (indented objects separated by `,` and CRLF, no brackets, null fields left out;
 * the last one cut short, as a crash mid-append leaves it), the captures laid out under a
 * copied ShareX folder while the history names their Windows paths. Imported into a real
 * server's database; every history URL on the old host then answers the same bytes or the
 * redirect, and a second run changes nothing.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { databaseConfig } from "@/lib/db/config";
import { followOnce, getAs, importCli, png } from "../support/old-links";
import { startTestServer, type TestServer } from "../support/server";

const OLD = "i.old.example";
const ENV = { UPLOAD_FILES: "all" };
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const WIN = "C:\\Users\\me\\Documents\\ShareX\\Screenshots";

let server: TestServer;
let serverDb: Db;
const scratch = mkdtempSync(join(tmpdir(), "sharex-import-"));
const shareX = join(scratch, "ShareX");
const history = join(scratch, "History.json");
const partial = join(scratch, "History-first-two.json");
const bytes: Record<string, Buffer> = {};

/** One item as ShareX's JObject.ToString() writes it: two-space indents, CRLF line breaks. */
const item = (fields: Record<string, string>) => JSON.stringify(fields, null, 2).replace(/\n/g, "\r\n");

beforeAll(async () => {
  server = await startTestServer(ENV);
  serverDb = createDb(databaseConfig(server.env));
  bytes.shot = await png(21);
  bytes.report = Buffer.from("quarterly report\r\nünïcödé\r\n");
  bytes.dup1 = await png(22);
  bytes.dup2 = await png(23);
  bytes.imgur = await png(24);
  bytes.again = await png(25);
  const place = (rel: string, data: Buffer) => {
    const path = join(shareX, "Screenshots", ...rel.split("\\"));
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, data);
  };
  place("2024-01\\shot one é.png", bytes.shot);
  place("2024-01\\Report Final.txt", bytes.report);
  place("2024-01\\image.png", bytes.dup1);
  place("2024-02\\image.png", bytes.dup2);
  place("2024-02\\elsewhere.png", bytes.imgur);
  place("2024-02\\again.png", bytes.again);
  const items = [
    item({
      FileName: "shot one é.png",
      FilePath: `${WIN}\\2024-01\\shot one é.png`,
      DateTime: "2024-01-15T10:20:30.1234567+01:00",
      Type: "Image",
      Host: "CustomImageUploader",
      URL: `https://${OLD}/AbCd1234.png`,
      ThumbnailURL: `https://${OLD}/thumb/AbCd1234.png`,
      DeletionURL: `https://${OLD}/delete/AbCd1234`,
      ShortenedURL: "https://sho.rt/q1",
    }),
    item({
      FileName: "Report Final.txt",
      FilePath: `${WIN}\\2024-01\\Report Final.txt`,
      DateTime: "2024-01-16T08:00:00+00:00",
      Type: "Text",
      Host: "CustomTextUploader",
      URL: `https://${OLD}/f/Report%20Final.txt`,
    }),
    item({
      FileName: "image.png",
      FilePath: `${WIN}\\2024-01\\image.png`,
      DateTime: "2024-01-20T09:00:00+00:00",
      Type: "Image",
      URL: `https://${OLD}/Dup1.png`,
    }),
    item({
      FileName: "image.png",
      FilePath: `${WIN}\\2024-02\\image.png`,
      DateTime: "2024-02-01T09:00:00+00:00",
      Type: "Image",
      URL: `https://${OLD}/Dup2.png`,
    }),
    item({
      FileName: "lost.png",
      FilePath: `${WIN}\\2024-02\\lost.png`,
      DateTime: "2024-02-02T09:00:00+00:00",
      Type: "Image",
      URL: `https://${OLD}/Lost0001.png`,
    }),
    item({
      FileName: "elsewhere.png",
      FilePath: `${WIN}\\2024-02\\elsewhere.png`,
      DateTime: "2024-02-03T09:00:00+00:00",
      Type: "Image",
      Host: "Imgur",
      URL: "https://i.imgur.com/zZzZzZz.png",
    }),
    // An uploader that handed out an address already used: the first item keeps it.
    item({
      FileName: "again.png",
      FilePath: `${WIN}\\2024-02\\again.png`,
      DateTime: "2024-02-03T10:00:00+00:00",
      Type: "Image",
      URL: `https://${OLD}/Dup1.png`,
    }),
    item({
      DateTime: "2024-02-04T09:00:00+00:00",
      Type: "URL",
      Host: "CustomURLShortener",
      URL: "https://example.com/a/long/page",
      ShortenedURL: `https://${OLD}/go/lnk1`,
    }),
  ];
  // A crash in the middle of an append leaves the last object cut short.
  writeFileSync(history, `\uFEFF${items.join(",\r\n")},\r\n{\r\n  "FileName": "half`);
  // What an import that was interrupted after its first two items had recorded.
  writeFileSync(partial, `\uFEFF${items.slice(0, 2).join(",\r\n")}`);
});

afterAll(async () => {
  await serverDb?.$disconnect();
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const counts = async () => ({
  posts: await serverDb.post.count(),
  links: await serverDb.shortLink.count(),
  redirects: await serverDb.importRedirect.count(),
});

describe("import sharex-history", () => {
  const args = () => ["import", "sharex-history", "--user", "sam", history, "--files", shareX, "--old-host", OLD];

  it("imports the captures and the shortened URL; a dry run first changes nothing", async () => {
    expect((await importCli(server, ENV, "user", "create", "--username", "sam", "--plan", "ultra")).code).toBe(0);
    const dry = await importCli(server, ENV, ...args(), "--dry-run");
    expect(dry.code, JSON.stringify(dry.json) + dry.stderr).toBe(0);
    expect(dry.json).toMatchObject({ dry_run: true, files: { would_import: 6 }, links: { would_import: 1 } });
    expect(await counts()).toEqual({ posts: 0, links: 0, redirects: 0 });

    // An interrupted run recorded the first two items; the full run continues from there.
    const first = await importCli(server, ENV, "import", "sharex-history", "--user", "sam", partial, "--files", shareX, "--old-host", OLD);
    expect(first.json).toMatchObject({ files: { imported: 2 } });
    const out = await importCli(server, ENV, ...args());
    expect(out.code, JSON.stringify(out.json) + out.stderr).toBe(0);
    expect(out.json).toMatchObject({
      source: expect.stringMatching(/^sharex@/),
      files: { imported: 4, already_imported: 2 },
      links: { imported: 1 },
    });
    expect(await serverDb.post.count()).toBe(6);
    expect(out.json.clashes).toEqual([`${OLD}/Dup1.png`]);
    const skipped = out.json.skipped as { item: string; reason: string }[];
    expect(skipped.find((s) => s.item.includes("lost.png"))?.reason).toMatch(/missing on disk/);
    expect(skipped.find((s) => s.item.includes("entry"))?.reason).toMatch(/ends inside an object|not valid JSON/);
    expect(skipped).toHaveLength(2);

    const shot = await serverDb.post.findUniqueOrThrow({ where: { code: "AbCd1234" }, include: { files: true } });
    expect(shot.createdAt.toISOString()).toBe("2024-01-15T09:20:30.123Z");
    expect(shot.privacy).toBe("unlisted");
    expect(await serverDb.shortLink.findUnique({ where: { code: "lnk1" } })).toMatchObject({ url: "https://example.com/a/long/page" });
    // Only the old host's URLs are recorded: imgur's and the third-party shortener's are not ours to answer.
    expect(await serverDb.importRedirect.count({ where: { host: { not: OLD } } })).toBe(0);
  });

  it("answers every history URL of the old host with the same bytes or the redirect", async () => {
    const cases: [string, Buffer][] = [
      ["/AbCd1234.png", bytes.shot],
      ["/f/Report%20Final.txt", bytes.report],
      ["/Dup1.png", bytes.dup1],
      ["/Dup2.png", bytes.dup2],
    ];
    for (const [path, data] of cases) {
      const answer = await getAs(server.url, path, OLD);
      expect(answer.status, path).toBe(200);
      expect(sha(answer.body), path).toBe(sha(data));
      // On the instance's own host only a path this service does not have is answered:
      // /f/ is its folder pages, so the old /f/... file stays the old host's alone.
      const own = await getAs(server.url, path);
      if (path.startsWith("/f/")) expect(own.status, path).toBe(404);
      else expect(sha(own.body), path).toBe(sha(data));
    }
    const link = await getAs(server.url, "/go/lnk1", OLD);
    expect([link.status, String(link.headers.location)]).toEqual([301, expect.stringMatching(/\/s\/lnk1$/)]);
    expect((await followOnce(server.url, link)).headers.location).toBe("https://example.com/a/long/page");
    expect((await getAs(server.url, "/Lost0001.png", OLD)).status).toBe(404);
  });

  it("a second run imports nothing and changes nothing", async () => {
    const before = await counts();
    const again = await importCli(server, ENV, ...args());
    expect(again.code).toBe(0);
    expect(again.json).toMatchObject({ files: { imported: 0, already_imported: 6 }, links: { imported: 0, already_imported: 1 } });
    expect(await counts()).toEqual(before);
  });
});

describe("a run killed between a post and its record", () => {
  it("is resumed by adopting the post it had made, never by making a second one", async () => {
    const args = ["import", "sharex-history", "--user", "sam", history, "--files", shareX, "--old-host", OLD];
    const post = await serverDb.post.findUniqueOrThrow({ where: { code: "AbCd1234" } });
    // What a kill leaves: the claim without its post, the post as the upload wrote it (its own
    // time, no old addresses, no record of the import).
    await serverDb.importedItem.updateMany({ where: { postId: post.id }, data: { postId: null } });
    await serverDb.importRedirect.deleteMany({ where: { postId: post.id } });
    await serverDb.post.update({ where: { id: post.id }, data: { createdAt: new Date() } });
    const posts = await serverDb.post.count();

    const resumed = await importCli(server, ENV, ...args);
    expect(resumed.json).toMatchObject({ files: { imported: 1, already_imported: 5 } });
    expect(await serverDb.post.count()).toBe(posts);
    const adopted = await serverDb.post.findUniqueOrThrow({ where: { id: post.id } });
    expect(adopted.createdAt.toISOString()).toBe("2024-01-15T09:20:30.123Z");
    expect((await getAs(server.url, "/AbCd1234.png", OLD)).body.equals(bytes.shot)).toBe(true);
  });
});
