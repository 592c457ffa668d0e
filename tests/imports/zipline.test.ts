/**
 * `admin import zipline` (docs/migrate.md): a Zipline v4 and a v3 database built from their
 * published schemas (the tables of v4's 2024-12-28 `init` migration; v3.7's after the January
 * 2023 renames) in a schema of the test PostgreSQL, files laid out as Zipline's local
 * datasource keeps them (flat, under each file's `name`). Each is imported into a real
 * server's database; every old URL is then requested with the old Host (and the ones that
 * do not exist here, on the server's own host) and gives the same bytes or the redirect,
 * and a second run changes nothing.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { databaseConfig } from "@/lib/db/config";
import { followOnce, getAs, importCli, peerDatabase, peerSchema, png } from "../support/old-links";
import { startTestServer, type TestServer } from "../support/server";
import { V3_TABLES, V4_TABLES } from "../support/zipline-schemas";

const peerUrl = await peerDatabase();
const OLD = "files.old.example";
const V3_HOST = "i.v3.example";
const ENV = { UPLOAD_FILES: "all" };
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

const ARGON = "$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$0cmeT8SGaSh5F4bIHH+QHWP5HhR6TkOM8M5YuFp0Zm8";
const BCRYPT = "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p3LQMMzUQlS4jUhCZv9C2e";

let server: TestServer;
let serverDb: Db;
const scratch = mkdtempSync(join(tmpdir(), "zipline-import-"));
const drops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  if (!peerUrl) return;
  server = await startTestServer(ENV);
  serverDb = createDb(databaseConfig(server.env));
});
afterAll(async () => {
  for (const drop of drops) await drop().catch(() => undefined);
  await serverDb?.$disconnect();
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** The rows that an import put in the server's database, to compare across runs. */
const counts = async () => ({
  posts: await serverDb.post.count(),
  links: await serverDb.shortLink.count(),
  redirects: await serverDb.importRedirect.count(),
  users: await serverDb.user.count(),
  folders: await serverDb.folder.count(),
});

describe.skipIf(!peerUrl)("import zipline v4", () => {
  const uploads = join(scratch, "v4-uploads");
  const bytes: Record<string, Buffer> = {};
  let db: { url: string; drop(): Promise<void> };

  beforeAll(async () => {
    const suffix = randomBytes(4).toString("hex");
    const past = "2020-03-04 05:06:07.890";
    bytes["aBc123.png"] = await png(1);
    bytes["my photo ü.png"] = await png(2);
    bytes["dupA11.png"] = await png(3);
    bytes["dupB22.png"] = await png(4);
    bytes["Locked.png"] = await png(5);
    bytes["Qw3rty.txt"] = Buffer.from("résumé notes, byte for byte\r\n");
    bytes["limit9.png"] = await png(6);
    bytes["zoe111.png"] = await png(7);
    bytes["old000.png"] = await png(8);
    const sql = `${V4_TABLES}
      INSERT INTO "Zipline" ("id", "updatedAt", "coreTempDirectory") VALUES ('z', now(), '/tmp/zipline');
      INSERT INTO "User" ("id", "updatedAt", "username", "password", "token") VALUES
        ('u1', now(), 'alice', '${ARGON}', 't1'), ('u2', now(), 'bob', NULL, 't2'),
        ('u3', now(), 'carol', '${ARGON}', 't3'), ('u4', now(), 'zoë', '${ARGON}', 't4');
      INSERT INTO "Folder" ("id", "updatedAt", "name", "public", "userId") VALUES ('d1', now(), 'Trips', true, 'u1');
      INSERT INTO "File" ("id", "createdAt", "updatedAt", "deletesAt", "name", "originalName", "size", "type", "views", "maxViews", "password", "userId", "folderId") VALUES
        ('f1', '${past}', now(), NULL, 'aBc123.png', 'holiday photo é.png', ${bytes["aBc123.png"].length}, 'image/png', 12, NULL, NULL, 'u1', 'd1'),
        ('f2', now(), now(), NULL, 'my photo ü.png', 'my photo ü.png', ${bytes["my photo ü.png"].length}, 'image/png', 0, NULL, NULL, 'u1', NULL),
        ('f3', now(), now(), NULL, 'dupA11.png', 'image.png', 10, 'image/png', 0, NULL, NULL, 'u1', NULL),
        ('f4', now(), now(), NULL, 'dupB22.png', 'image.png', 10, 'image/png', 0, NULL, NULL, 'u2', NULL),
        ('f5', now(), now(), NULL, 'Locked.png', 'secret.png', 10, 'image/png', 0, NULL, '${ARGON}', 'u1', NULL),
        ('f6', now(), now(), NULL, 'Qw3rty.txt', 'résumé notes.txt', 10, 'text/plain', 0, NULL, NULL, 'u2', NULL),
        ('f7', now(), now(), NULL, 'limit9.png', 'limited.png', 10, 'image/png', 2, 5, NULL, 'u2', NULL),
        ('f8', now(), now(), NULL, 'gone12.png', 'missing.png', 10, 'image/png', 0, NULL, NULL, 'u1', NULL),
        ('f9', now(), now(), '${past}', 'old000.png', 'expired.png', 10, 'image/png', 0, NULL, NULL, 'u1', NULL),
        ('fa', now(), now(), NULL, 'zoe111.png', 'zoe.png', 10, 'image/png', 0, NULL, NULL, 'u4', NULL);
      INSERT INTO "Url" ("id", "updatedAt", "code", "vanity", "destination", "views", "maxViews", "password", "userId") VALUES
        ('l1', now(), 'go1234', NULL, 'https://example.com/a', 7, NULL, NULL, 'u1'),
        ('l2', now(), 'xY7abc', 'docs', 'https://example.com/docs', 3, 10, NULL, 'u2'),
        ('l3', now(), 'pw0000', NULL, 'https://example.com/private', 0, NULL, '${ARGON}', 'u1'),
        ('l4', now(), 'same01', 'same01', 'https://example.com/same', 0, NULL, NULL, 'u1');`;
    db = await peerSchema(peerUrl!, `zipline_v4_${suffix}`, sql);
    drops.push(db.drop);
    const { mkdirSync } = await import("node:fs");
    mkdirSync(uploads, { recursive: true });
    // Zipline's local datasource: every file flat under its name (gone12.png is missing on purpose).
    for (const [name, data] of Object.entries(bytes)) writeFileSync(join(uploads, name), data);
  });

  const args = () => [
    "import",
    "zipline",
    "--from",
    db.url,
    "--uploads",
    uploads,
    "--old-host",
    OLD,
    "--map-users",
    "auto",
    "--plan",
    "ultra",
  ];

  it("a dry run reports what would happen and changes nothing", async () => {
    const before = await counts();
    const dry = await importCli(server, ENV, ...args(), "--dry-run");
    expect(dry.code, JSON.stringify(dry.json) + dry.stderr).toBe(0);
    expect(dry.json).toMatchObject({ dry_run: true, files: { imported: 0, would_import: 7 }, links: { imported: 0, would_import: 3 } });
    expect(await counts()).toEqual(before);
  });

  it("imports users, files, folders and links, skipping what cannot come with a reason", async () => {
    const out = await importCli(server, ENV, ...args());
    expect(out.code, JSON.stringify(out.json) + out.stderr).toBe(0);
    expect(out.json).toMatchObject({ source: `zipline@${OLD}`, dry_run: false, files: { imported: 7 }, links: { imported: 3 } });
    const users = out.json.users as { peer_username: string; created: boolean; reset_link: string | null; note: string | null }[];
    expect(
      users
        .filter((u) => u.created)
        .map((u) => u.peer_username)
        .sort(),
    ).toEqual(["alice", "bob", "carol"]);
    // No peer hash is one this service checks: a reset link each, and the scheme named.
    for (const u of users.filter((u) => u.created)) expect(u.reset_link).toMatch(/\/reset-password\?token=|reset/);
    expect(users.find((u) => u.peer_username === "alice")?.note).toMatch(/argon2/);
    const skipped = out.json.skipped as { item: string; reason: string }[];
    const reason = (key: string) => skipped.find((s) => s.item.startsWith(key))?.reason;
    expect(reason("file file:f8")).toMatch(/missing on disk/);
    expect(reason("file file:f9")).toMatch(/expired/);
    expect(reason("file file:fa")).toMatch(/not a valid username/);
    expect(reason("user zoë")).toMatch(/--map-users/);
    expect(reason("link url:l3")).toMatch(/password/);
    expect(out.stderr).toMatch(/files \d+ imported/);

    const alice = await serverDb.user.findUniqueOrThrow({ where: { username: "alice" } });
    expect(alice.passwordHash).toBeNull();
    const first = await serverDb.post.findUniqueOrThrow({
      where: { code: "aBc123" },
      include: { files: true, folders: { include: { folder: true } } },
    });
    expect(first).toMatchObject({ userId: alice.id, privacy: "unlisted", viewCount: 12 });
    expect(first.createdAt.toISOString()).toBe("2020-03-04T05:06:07.890Z");
    // The name as an upload would store it (spaces become `_`: docs/uploads.md).
    expect(first.files[0].name).toBe("holiday_photo_é.png");
    expect(first.folders[0].folder).toMatchObject({ name: "Trips", privacy: "public" });
    const locked = await serverDb.post.findUniqueOrThrow({ where: { code: "Locked" } });
    expect(locked.privacy).toBe("private");
    const limited = await serverDb.post.findUniqueOrThrow({ where: { code: "limit9" } });
    expect(limited).toMatchObject({ maxViews: 5, viewCount: 2 });
    const docs = await serverDb.shortLink.findUniqueOrThrow({ where: { code: "docs" } });
    expect(docs).toMatchObject({ url: "https://example.com/docs", clickCount: 3, maxClicks: 10 });
    expect(await serverDb.user.findUnique({ where: { username: "carol" } })).not.toBeNull();
  });

  it("answers every old URL on the old host with the same bytes or the redirect", async () => {
    const raw = async (path: string, name: string, host = OLD) => {
      const answer = await getAs(server.url, path, host);
      expect(answer.status, `${host}${path}`).toBe(200);
      expect(sha(answer.body), `${host}${path}`).toBe(sha(bytes[name]));
    };
    for (const name of ["aBc123.png", "my photo ü.png", "dupA11.png", "dupB22.png", "Qw3rty.txt"]) {
      const encoded = encodeURIComponent(name);
      await raw(`/u/${encoded}`, name);
      await raw(`/raw/${encoded}`, name);
      const view = await getAs(server.url, `/view/${encoded}`, OLD);
      expect(view.status).toBe(301);
      expect(String(view.headers.location)).toMatch(/\/p\/[A-Za-z0-9]+$/);
      expect((await followOnce(server.url, view)).status).toBe(200);
    }
    // Password-protected and view-limited files are never served raw: their page decides.
    for (const name of ["Locked.png", "limit9.png"]) {
      const answer = await getAs(server.url, `/u/${name}`, OLD);
      expect(answer.status).toBe(301);
      expect(String(answer.headers.location)).toMatch(new RegExp(`/p/${name.replace(".png", "")}$`));
    }
    const go = await getAs(server.url, "/go/go1234", OLD);
    expect([go.status, String(go.headers.location)]).toEqual([301, expect.stringMatching(/\/s\/go1234$/)]);
    const follow = await followOnce(server.url, go);
    expect([follow.status, follow.headers.location]).toEqual([302, "https://example.com/a"]);
    // A vanity name equal to its code: one old address, recorded once.
    const same = await getAs(server.url, "/go/same01", OLD);
    expect([same.status, String(same.headers.location)]).toEqual([301, expect.stringMatching(/\/s\/same01$/)]);
    for (const path of ["/go/docs", "/go/xY7abc"]) {
      const answer = await getAs(server.url, path, OLD);
      expect([answer.status, String(answer.headers.location)]).toEqual([301, expect.stringMatching(/\/s\/docs$/)]);
    }
    // Not an imported path on the old host: the service's own answer.
    expect((await getAs(server.url, "/u/nothing-here.png", OLD)).status).toBe(404);
  });

  it("on this instance's own host, answers only paths this service does not have (never /u/, which is profiles)", async () => {
    expect((await getAs(server.url, "/raw/aBc123.png")).status).toBe(200);
    expect((await getAs(server.url, "/go/docs")).status).toBe(301);
    const profile = await getAs(server.url, "/u/aBc123.png");
    expect(profile.status).not.toBe(200);
    expect(profile.body.equals(bytes["aBc123.png"])).toBe(false);
  });

  it("a second run imports nothing and changes nothing", async () => {
    const before = await counts();
    const again = await importCli(server, ENV, ...args());
    expect(again.code, JSON.stringify(again.json)).toBe(0);
    expect(again.json).toMatchObject({ files: { imported: 0, already_imported: 7 }, links: { imported: 0, already_imported: 3 } });
    expect((again.json.users as { created: boolean }[]).some((u) => u.created)).toBe(false);
    expect(await counts()).toEqual(before);
  });
});

describe.skipIf(!peerUrl)("import zipline v3", () => {
  const uploads = join(scratch, "v3-uploads");
  const bytes: Record<string, Buffer> = {};
  let db: { url: string; drop(): Promise<void> };

  beforeAll(async () => {
    const suffix = randomBytes(4).toString("hex");
    bytes["Kq81Zm.png"] = await png(11);
    bytes["with space.png"] = await png(12);
    // The same short name as a v4 file already imported: its code is taken here.
    bytes["aBc123.png"] = await png(13);
    const sql = `${V3_TABLES}
      INSERT INTO "User" ("username", "password", "token") VALUES ('dave', '${BCRYPT}', 'a'), ('erin', NULL, 'b');
      INSERT INTO "Folder" ("name", "updatedAt", "userId", "public") VALUES ('Screens', now(), 1, false);
      INSERT INTO "File" ("name", "originalName", "mimetype", "createdAt", "views", "size", "userId", "folderId") VALUES
        ('Kq81Zm.png', 'screen.png', 'image/png', '2022-01-02 03:04:05', 4, ${bytes["Kq81Zm.png"].length}, 1, 1),
        ('with space.png', NULL, 'image/png', now(), 0, 1, 1, NULL),
        ('aBc123.png', 'clash.png', 'image/png', now(), 0, 1, 1, NULL);
      INSERT INTO "Url" ("id", "destination", "vanity", "views", "userId") VALUES
        ('cl9abc', 'https://example.org/v3', 'v3link', 2, 1), ('cl9def', 'https://example.org/docs3', 'docs', 0, 1);`;
    db = await peerSchema(peerUrl!, `zipline_v3_${suffix}`, sql);
    drops.push(db.drop);
    const { mkdirSync } = await import("node:fs");
    mkdirSync(uploads, { recursive: true });
    for (const [name, data] of Object.entries(bytes)) writeFileSync(join(uploads, name), data);
  });

  it("imports a v3 database into one account and answers its /u, /r and /go paths; a second run changes nothing", async () => {
    const owner = await importCli(server, ENV, "user", "create", "--username", "v3owner", "--plan", "ultra");
    expect(owner.code).toBe(0);
    const args = ["import", "zipline", "--from", db.url, "--uploads", uploads, "--old-host", V3_HOST, "--user", "v3owner"];
    const out = await importCli(server, ENV, ...args);
    expect(out.code, JSON.stringify(out.json) + out.stderr).toBe(0);
    expect(out.json).toMatchObject({ source: `zipline@${V3_HOST}`, files: { imported: 3 }, links: { imported: 2 } });
    const post = await serverDb.post.findUniqueOrThrow({ where: { code: "Kq81Zm" }, include: { user: true } });
    expect(post.user?.username).toBe("v3owner");
    expect(post.createdAt.toISOString()).toBe("2022-01-02T03:04:05.000Z");
    for (const name of Object.keys(bytes)) {
      for (const prefix of ["/u/", "/r/"]) {
        const answer = await getAs(server.url, `${prefix}${encodeURIComponent(name)}`, V3_HOST);
        expect(answer.status, `${prefix}${name}`).toBe(200);
        expect(answer.body.equals(bytes[name])).toBe(true);
      }
    }
    for (const path of ["/go/cl9abc", "/go/v3link"]) {
      const answer = await getAs(server.url, path, V3_HOST);
      expect([answer.status, String(answer.headers.location)]).toEqual([301, expect.stringMatching(/\/s\/v3link$/)]);
    }
    // Codes taken here (by the v4 import): new ones, and the old addresses lead to them.
    const clash = await serverDb.importRedirect.findUniqueOrThrow({
      where: { host_path: { host: V3_HOST, path: "/u/aBc123.png" } },
      include: { post: true },
    });
    expect(clash.post?.code).not.toBe("aBc123");
    const docs = await getAs(server.url, "/go/docs", V3_HOST);
    expect(docs.status).toBe(301);
    expect(String(docs.headers.location)).not.toMatch(/\/s\/docs$/);
    expect((await followOnce(server.url, docs)).headers.location).toBe("https://example.org/docs3");
    const before = await counts();
    const again = await importCli(server, ENV, ...args);
    expect(again.json).toMatchObject({ files: { imported: 0, already_imported: 3 }, links: { imported: 0, already_imported: 2 } });
    expect(await counts()).toEqual(before);
  });
});
