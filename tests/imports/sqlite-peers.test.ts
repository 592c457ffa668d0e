/**
 * `admin import chibisafe` and `admin import xbackbone` (docs/migrate.md): each peer's SQLite
 * database built from its published schema (Chibisafe v6's Prisma schema, with Prisma's
 * millisecond dates; XBackBone's sqlite.1-7.sql, with CURRENT_TIMESTAMP text; and XBackBone
 * on MySQL as `mysqldump` writes its mysql.1-7.sql tables), rows as the peer writes them,
 * files laid out as it stores them. Imported into a real server's database;
 * every old URL answers the same bytes or the redirect, and a second run changes nothing.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { databaseConfig } from "@/lib/db/config";
import { getAs, importCli, png } from "../support/old-links";
import { startTestServer, type TestServer } from "../support/server";

const ENV = { UPLOAD_FILES: "all" };
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const BCRYPT = "$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p3LQMMzUQlS4jUhCZv9C2e";
const PHP_BCRYPT = "$2y$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p3LQMMzUQlS4jUhCZv9C2e";

let server: TestServer;
let serverDb: Db;
const scratch = mkdtempSync(join(tmpdir(), "sqlite-peers-"));

beforeAll(async () => {
  server = await startTestServer(ENV);
  serverDb = createDb(databaseConfig(server.env));
});
afterAll(async () => {
  await serverDb?.$disconnect();
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const counts = async () => ({
  posts: await serverDb.post.count(),
  redirects: await serverDb.importRedirect.count(),
  users: await serverDb.user.count(),
  folders: await serverDb.folder.count(),
});

describe("import chibisafe", () => {
  const HOST = "chibi.old.example";
  const dbPath = join(scratch, "database.sqlite");
  const uploads = join(scratch, "uploads");
  const bytes: Record<string, Buffer> = {};

  beforeAll(async () => {
    bytes["Xy12AbCd.png"] = await png(31);
    bytes["Dup1Dup1.png"] = await png(32);
    bytes["Dup2Dup2.png"] = await png(33);
    bytes["Quar0001.png"] = await png(34);
    bytes["Anon0001.png"] = await png(35);
    mkdirSync(uploads, { recursive: true });
    for (const [name, data] of Object.entries(bytes)) writeFileSync(join(uploads, name), data);
    const db = new Database(dbPath);
    // Prisma's SQLite migration of Chibisafe v6's schema (the tables this import reads).
    db.exec(`
      CREATE TABLE "users" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "uuid" TEXT NOT NULL, "username" TEXT NOT NULL,
        "password" TEXT NOT NULL, "enabled" BOOLEAN NOT NULL DEFAULT true, "storageQuota" TEXT NOT NULL DEFAULT '0', "apiKey" TEXT,
        "passwordEditedAt" DATETIME, "apiKeyEditedAt" DATETIME, "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, "editedAt" DATETIME);
      CREATE TABLE "files" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "uuid" TEXT NOT NULL, "userId" INTEGER, "name" TEXT NOT NULL,
        "original" TEXT NOT NULL, "type" TEXT NOT NULL, "size" TEXT NOT NULL, "hash" TEXT NOT NULL, "ip" TEXT NOT NULL,
        "isS3" BOOLEAN NOT NULL DEFAULT false, "isWatched" BOOLEAN NOT NULL DEFAULT false, "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
        "editedAt" DATETIME, "quarantine" BOOLEAN NOT NULL DEFAULT false,
        CONSTRAINT "files_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users" ("id") ON DELETE SET NULL ON UPDATE CASCADE);
      CREATE TABLE "albums" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "uuid" TEXT NOT NULL, "userId" INTEGER NOT NULL, "name" TEXT NOT NULL,
        "description" TEXT, "zippedAt" DATETIME, "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, "editedAt" DATETIME,
        "nsfw" BOOLEAN NOT NULL DEFAULT false);
      CREATE TABLE "_albumsTofiles" ("A" INTEGER NOT NULL, "B" INTEGER NOT NULL);
      CREATE UNIQUE INDEX "_albumsTofiles_AB_unique" ON "_albumsTofiles"("A", "B");
    `);
    const user = db.prepare(`INSERT INTO "users" ("uuid", "username", "password", "createdAt") VALUES (?, ?, ?, ?)`);
    user.run("u-1", "kim", BCRYPT, 1_700_000_000_000);
    user.run("u-2", "lee", BCRYPT, 1_700_000_000_000);
    const file = db.prepare(
      `INSERT INTO "files" ("uuid", "userId", "name", "original", "type", "size", "hash", "ip", "createdAt", "quarantine") VALUES (?, ?, ?, ?, 'image/png', ?, 'h', '127.0.0.1', ?, ?)`,
    );
    file.run("f-1", 1, "Xy12AbCd.png", "Ünïcode file.png", String(bytes["Xy12AbCd.png"].length), 1_650_000_000_000, 0);
    file.run("f-2", 1, "Dup1Dup1.png", "image.png", "1", 1_650_000_000_001, 0);
    file.run("f-3", 1, "Dup2Dup2.png", "image.png", "1", 1_650_000_000_002, 0);
    file.run("f-4", 1, "Gone0001.png", "gone.png", "1", 1_650_000_000_003, 0);
    file.run("f-5", 1, "Quar0001.png", "flagged.png", "1", 1_650_000_000_004, 1);
    file.run("f-6", null, "Anon0001.png", "anonymous.png", "1", 1_650_000_000_005, 0);
    db.prepare(`INSERT INTO "albums" ("uuid", "userId", "name") VALUES ('a-1', 1, 'Wallpapers')`).run();
    db.prepare(`INSERT INTO "_albumsTofiles" ("A", "B") VALUES (1, 1)`).run();
    db.close();
  });

  const args = ["import", "chibisafe", "--from", dbPath, "--uploads", uploads, "--old-host", HOST, "--map-users", "auto"];

  it("imports users and files, skips the quarantined, missing and ownerless with reasons; old /{name} paths answer the bytes", async () => {
    const out = await importCli(server, ENV, ...args);
    expect(out.code, JSON.stringify(out.json) + out.stderr).toBe(0);
    expect(out.json).toMatchObject({ source: `chibisafe@${HOST}`, files: { imported: 3 } });
    const users = out.json.users as { peer_username: string; created: boolean; note: string | null }[];
    expect(users.map((u) => [u.peer_username, u.created])).toEqual([
      ["kim", true],
      ["lee", true],
    ]);
    expect(users[0].note).toMatch(/bcrypt/);
    const reasons = Object.fromEntries(
      (out.json.skipped as { item: string; reason: string }[]).map((s) => [s.item.split(" ")[1], s.reason]),
    );
    expect(reasons["file:4"]).toMatch(/missing on disk/);
    expect(reasons["file:5"]).toMatch(/quarantined/);
    expect(reasons["file:6"]).toMatch(/no owner/);

    const post = await serverDb.post.findUniqueOrThrow({
      where: { code: "Xy12AbCd" },
      include: { files: true, folders: { include: { folder: true } } },
    });
    expect(post.createdAt.getTime()).toBe(1_650_000_000_000);
    expect(post.files[0].name).toBe("Ünïcode_file.png");
    expect(post.folders[0].folder.name).toBe("Wallpapers");
    for (const name of ["Xy12AbCd.png", "Dup1Dup1.png", "Dup2Dup2.png"]) {
      for (const host of [HOST, undefined]) {
        const answer = await getAs(server.url, `/${name}`, host);
        expect(answer.status, `${host}/${name}`).toBe(200);
        expect(sha(answer.body)).toBe(sha(bytes[name]));
      }
    }
    expect((await getAs(server.url, "/Quar0001.png", HOST)).status).toBe(404);

    const before = await counts();
    const again = await importCli(server, ENV, ...args);
    expect(again.json).toMatchObject({ files: { imported: 0, already_imported: 3 } });
    expect(await counts()).toEqual(before);
  });
});

describe("import xbackbone", () => {
  const HOST = "xbb.old.example";
  const dbPath = join(scratch, "xbackbone.db");
  const storage = join(scratch, "storage");
  const bytes: Record<string, Buffer> = {};

  beforeAll(async () => {
    bytes.pub = await png(41);
    bytes.hidden = await png(42);
    bytes.text = Buffer.from("<?php echo 'not run here'; ?>\n");
    mkdirSync(join(storage, "AbCdE"), { recursive: true });
    writeFileSync(join(storage, "AbCdE", "Pub12345.png"), bytes.pub);
    writeFileSync(join(storage, "AbCdE", "Hid12345.png"), bytes.hidden);
    writeFileSync(join(storage, "AbCdE", "Txt12345.php"), bytes.text);
    const db = new Database(dbPath);
    // XBackBone's resources/schemas/sqlite/sqlite.1.sql to sqlite.7.sql, in order.
    db.exec(`
      CREATE TABLE IF NOT EXISTS \`users\` (\`id\` INTEGER PRIMARY KEY AUTOINCREMENT, \`email\` VARCHAR(30) NOT NULL, \`username\` VARCHAR(30) NOT NULL,
        \`password\` VARCHAR(256) NOT NULL, \`user_code\` VARCHAR(5), \`token\` VARCHAR(256), \`active\` BOOLEAN NOT NULL DEFAULT 1,
        \`is_admin\` BOOLEAN NOT NULL DEFAULT 0, \`registration_date\` TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP);
      CREATE TABLE IF NOT EXISTS \`uploads\` (\`id\` INTEGER PRIMARY KEY AUTOINCREMENT, \`user_id\` INTEGER(20), \`code\` VARCHAR(64) NOT NULL,
        \`filename\` VARCHAR(128) NOT NULL, \`storage_path\` VARCHAR(256) NOT NULL, \`published\` BOOLEAN NOT NULL DEFAULT 1,
        \`timestamp\` TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
        FOREIGN KEY (\`user_id\`) REFERENCES \`users\` (\`id\`) ON UPDATE CASCADE ON DELETE SET NULL);
      CREATE UNIQUE INDEX IF NOT EXISTS \`username_index\` ON \`users\` (\`username\`);
      CREATE UNIQUE INDEX IF NOT EXISTS \`user_code_index\` ON \`users\` (\`user_code\`);
      CREATE UNIQUE INDEX IF NOT EXISTS \`code_index\` ON \`uploads\` (\`code\`);
      CREATE TABLE IF NOT EXISTS \`settings\` (\`key\` VARCHAR(32) PRIMARY KEY, \`value\` TEXT);
      ALTER TABLE \`users\` ADD COLUMN \`remember_selector\` VARCHAR(16);
      ALTER TABLE \`users\` ADD COLUMN \`remember_token\` VARCHAR(256);
      ALTER TABLE \`users\` ADD COLUMN \`remember_expire\` TIMESTAMP;
      ALTER TABLE \`users\` ADD COLUMN \`activate_token\` VARCHAR(32);
      ALTER TABLE \`users\` ADD COLUMN \`reset_token\` VARCHAR(32);
      ALTER TABLE \`users\` ADD COLUMN \`current_disk_quota\` BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE \`users\` ADD COLUMN \`max_disk_quota\` BIGINT NOT NULL DEFAULT -1;
      ALTER TABLE \`users\` ADD COLUMN \`ldap\` BOOLEAN NOT NULL DEFAULT 0;
      ALTER TABLE \`users\` ADD COLUMN \`hide_uploads\` BOOLEAN NOT NULL DEFAULT 0;
      ALTER TABLE \`users\` ADD COLUMN \`copy_raw\` BOOLEAN NOT NULL DEFAULT 0;
    `);
    db.prepare("INSERT INTO `users` (`email`, `username`, `password`, `user_code`, `token`) VALUES ('m@x', 'mia', ?, 'AbCdE', 't')").run(
      PHP_BCRYPT,
    );
    const upload = db.prepare(
      "INSERT INTO `uploads` (`user_id`, `code`, `filename`, `storage_path`, `published`, `timestamp`) VALUES (1, ?, ?, ?, ?, ?)",
    );
    upload.run("Pub12345", "my screenshot ✓.png", "AbCdE/Pub12345.png", 1, "2019-07-08 09:10:11");
    upload.run("Hid12345", "hidden.png", "AbCdE/Hid12345.png", 0, "2019-07-08 09:10:12");
    upload.run("Txt12345", "script.php", "AbCdE/Txt12345.php", 1, "2019-07-08 09:10:13");
    upload.run("Gon12345", "gone.png", "AbCdE/Gon12345.png", 1, "2019-07-08 09:10:14");
    db.close();
  });

  it("imports uploads into one account; pages redirect, raw and download paths answer the bytes; unpublished stays private", async () => {
    expect((await importCli(server, ENV, "user", "create", "--username", "mia-new", "--plan", "ultra")).code).toBe(0);
    const args = ["import", "xbackbone", "--from", dbPath, "--storage", storage, "--old-host", HOST, "--user", "mia-new"];
    const out = await importCli(server, ENV, ...args);
    expect(out.code, JSON.stringify(out.json) + out.stderr).toBe(0);
    expect(out.json).toMatchObject({ source: `xbackbone@${HOST}`, files: { imported: 3 } });
    expect((out.json.skipped as { item: string; reason: string }[])[0]).toMatchObject({
      item: expect.stringMatching(/upload:4/),
      reason: expect.stringMatching(/missing on disk/),
    });

    const pub = await serverDb.post.findUniqueOrThrow({ where: { code: "Pub12345" } });
    expect(pub.createdAt.toISOString()).toBe("2019-07-08T09:10:11.000Z");
    expect((await serverDb.post.findUniqueOrThrow({ where: { code: "Hid12345" } })).privacy).toBe("private");

    for (const [code, ext, data] of [
      ["Pub12345", "png", bytes.pub],
      ["Txt12345", "php", bytes.text],
    ] as const) {
      for (const path of [`/AbCdE/${code}/raw`, `/AbCdE/${code}/raw.${ext}`, `/AbCdE/${code}/download`]) {
        const answer = await getAs(server.url, path, HOST);
        expect(answer.status, path).toBe(200);
        expect(sha(answer.body), path).toBe(sha(data));
      }
      for (const path of [`/AbCdE/${code}`, `/AbCdE/${code}.${ext}`]) {
        const answer = await getAs(server.url, path, HOST);
        expect([answer.status, String(answer.headers.location)], path).toEqual([301, expect.stringMatching(new RegExp(`/p/${code}$`))]);
      }
    }
    const hidden = await getAs(server.url, "/AbCdE/Hid12345/raw", HOST);
    expect([hidden.status, String(hidden.headers.location)]).toEqual([301, expect.stringMatching(/\/p\/Hid12345$/)]);

    const before = await counts();
    const again = await importCli(server, ENV, ...args);
    expect(again.json).toMatchObject({ files: { imported: 0, already_imported: 3 } });
    expect(await counts()).toEqual(before);
  });
});

describe("import xbackbone from a mysqldump", () => {
  const HOST = "xbb-mysql.old.example";
  const dump = join(scratch, "xbackbone.sql");
  const storage = join(scratch, "storage-mysql");
  const bytes: Record<string, Buffer> = {};

  beforeAll(async () => {
    bytes.one = await png(51);
    bytes.two = Buffer.from("it's a \\ text, with 'quotes'\n");
    mkdirSync(join(storage, "QwErT"), { recursive: true });
    writeFileSync(join(storage, "QwErT", "MyOne001.png"), bytes.one);
    writeFileSync(join(storage, "QwErT", "MyTwo002.txt"), bytes.two);
    // mysqldump's layout: the CREATE TABLE it prints for the migrated tables, then one extended INSERT per table.
    writeFileSync(
      dump,
      [
        "-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)",
        "/*!40101 SET NAMES utf8mb4 */;",
        "DROP TABLE IF EXISTS `uploads`;",
        "CREATE TABLE `uploads` (",
        "  `id` int NOT NULL AUTO_INCREMENT,",
        "  `user_id` int DEFAULT NULL,",
        "  `code` varchar(64) NOT NULL,",
        "  `filename` varchar(128) NOT NULL,",
        "  `storage_path` varchar(256) NOT NULL,",
        "  `published` tinyint(1) NOT NULL DEFAULT '1',",
        "  `timestamp` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,",
        "  PRIMARY KEY (`id`),",
        "  KEY `code` (`code`)",
        ") ENGINE=InnoDB AUTO_INCREMENT=3 DEFAULT CHARSET=utf8mb4;",
        "LOCK TABLES `uploads` WRITE;",
        "/*!40000 ALTER TABLE `uploads` DISABLE KEYS */;",
        "INSERT INTO `uploads` VALUES (1,1,'MyOne001','holiday, \\'best\\' (1).png','QwErT/MyOne001.png',1,'2020-02-03 04:05:06'),(2,1,'MyTwo002','notes.txt','QwErT/MyTwo002.txt',1,'2020-02-03 04:05:07');",
        "/*!40000 ALTER TABLE `uploads` ENABLE KEYS */;",
        "UNLOCK TABLES;",
        "DROP TABLE IF EXISTS `users`;",
        "CREATE TABLE `users` (",
        "  `id` int NOT NULL AUTO_INCREMENT,",
        "  `email` varchar(30) NOT NULL,",
        "  `username` varchar(30) NOT NULL,",
        "  `password` varchar(256) NOT NULL,",
        "  `user_code` varchar(5) DEFAULT NULL,",
        "  `token` varchar(256) DEFAULT NULL,",
        "  `active` tinyint(1) NOT NULL DEFAULT '1',",
        "  `is_admin` tinyint(1) NOT NULL DEFAULT '0',",
        "  `registration_date` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,",
        "  `remember_selector` varchar(16) DEFAULT NULL,",
        "  `remember_token` varchar(256) DEFAULT NULL,",
        "  `remember_expire` timestamp NULL DEFAULT NULL,",
        "  `activate_token` varchar(32) DEFAULT NULL,",
        "  `reset_token` varchar(32) DEFAULT NULL,",
        "  `current_disk_quota` bigint NOT NULL DEFAULT '0',",
        "  `max_disk_quota` bigint NOT NULL DEFAULT '-1',",
        "  `ldap` tinyint(1) NOT NULL DEFAULT '0',",
        "  `hide_uploads` tinyint(1) NOT NULL DEFAULT '0',",
        "  `copy_raw` tinyint(1) NOT NULL DEFAULT '0',",
        "  PRIMARY KEY (`id`)",
        ") ENGINE=InnoDB AUTO_INCREMENT=2 DEFAULT CHARSET=utf8mb4;",
        `INSERT INTO \`users\` VALUES (1,'n@x','nora','${PHP_BCRYPT}','QwErT','tok',1,1,'2019-01-01 00:00:00',NULL,NULL,NULL,NULL,NULL,0,-1,0,0,0);`,
        "-- Dump completed on 2026-12-01 10:00:00",
        "",
      ].join("\n"),
    );
  });

  it("reads the dump's tables and answers the old links; a second run changes nothing", async () => {
    const args = ["import", "xbackbone", "--from", dump, "--storage", storage, "--old-host", HOST, "--map-users", "auto"];
    const out = await importCli(server, ENV, ...args);
    expect(out.code, JSON.stringify(out.json) + out.stderr).toBe(0);
    expect(out.json).toMatchObject({ files: { imported: 2 }, users: [{ peer_username: "nora", created: true }] });
    expect(out.stderr).toMatch(/MySQL dump/);
    const one = await serverDb.post.findUniqueOrThrow({ where: { code: "MyOne001" }, include: { files: true, user: true } });
    expect(one.user?.username).toBe("nora");
    expect(one.createdAt.toISOString()).toBe("2020-02-03T04:05:06.000Z");
    // The escaped quotes were read as quotes (then dropped by the upload's name rule), the row's other values in place.
    expect(one.files[0].name).toBe("holiday_best_1.png");
    for (const [path, data] of [
      ["/QwErT/MyOne001/raw", bytes.one],
      ["/QwErT/MyTwo002/raw.txt", bytes.two],
    ] as const) {
      const answer = await getAs(server.url, path, HOST);
      expect(answer.status, path).toBe(200);
      expect(sha(answer.body), path).toBe(sha(data));
    }
    const before = await counts();
    expect((await importCli(server, ENV, ...args)).json).toMatchObject({ files: { imported: 0, already_imported: 2 } });
    expect(await counts()).toEqual(before);
  });
});
