/**
 * Imports whose files are in the peer's S3 bucket (docs/migrate.md, "Files on S3"), read from
 * a real S3-compatible server (s3rver, as tests/storage/contract.test.ts runs it): Zipline v4's
 * S3 datasource with a subdirectory (keys `SUBDIRECTORY/name`), and a Chibisafe whose files
 * are partly on disk, partly in its bucket (`isS3`). The bytes arrive exactly; a file missing
 * from the bucket is skipped with its reason; a second run changes nothing; a bucket that
 * does not exist, or a bad --bucket, is refused before anything is read.
 */
import { type ChildProcess, fork } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "@/lib/cli/admin";
import { db } from "@/lib/db/client";
import { storage } from "@/lib/storage";
import { createS3Client } from "@/lib/storage/s3";
import { useCounterStore } from "../support/counters";
import { useTestDatabase } from "../support/db";
import { createTestUser } from "../support/fixtures";
import { peerDatabase, peerSchema, png } from "../support/old-links";
import { V4_TABLES } from "../support/zipline-schemas";

useTestDatabase();
useCounterStore();

const BUCKET = "peer-bucket";
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const peerUrl = await peerDatabase();
const scratch = mkdtempSync(join(tmpdir(), "import-s3-"));
let s3rver: ChildProcess | undefined;
let s3Dir = "";
let endpoint = "";
const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

beforeAll(async () => {
  s3Dir = mkdtempSync(join(tmpdir(), "import-s3rver-"));
  const child = fork(fileURLToPath(new URL("../storage/s3rver-child.mjs", import.meta.url)), [s3Dir, BUCKET], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  s3rver = child;
  const [message] = (await Promise.race([
    once(child, "message"),
    once(child, "exit").then(([code]) => Promise.reject(new Error(`s3rver exited with ${code}`))),
  ])) as [{ port: number }];
  endpoint = `http://127.0.0.1:${message.port}`;
  // The peer's credentials come from the AWS SDK's chain: here its environment variables (s3rver's own keys).
  process.env.AWS_ACCESS_KEY_ID = "S3RVER";
  process.env.AWS_SECRET_ACCESS_KEY = "S3RVER";
});

afterAll(async () => {
  for (const [key, value] of [
    ["AWS_ACCESS_KEY_ID", saved.id],
    ["AWS_SECRET_ACCESS_KEY", saved.secret],
  ] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  if (s3rver?.connected) {
    const exited = once(s3rver, "exit");
    s3rver.disconnect();
    await exited;
  }
  rmSync(s3Dir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

async function putObjects(objects: Record<string, Buffer>): Promise<void> {
  const client = createS3Client({ bucket: BUCKET, endpoint, accessKeyId: "S3RVER", secretAccessKey: "S3RVER" });
  try {
    for (const [key, body] of Object.entries(objects)) await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
  } finally {
    client.destroy();
  }
}

const admin = async (...argv: string[]) =>
  (await runAdmin(argv, { log: () => {} })) as { exitCode: number; output: Record<string, unknown> };

/** The bytes this instance stored for the post `code`. */
async function storedBytes(code: string): Promise<Buffer> {
  const post = await db().post.findUniqueOrThrow({ where: { code }, include: { files: true } });
  const object = await storage().open(post.files[0].storageKey);
  if (!object) throw new Error(`no stored object for ${code}`);
  const chunks: Buffer[] = [];
  for await (const chunk of object.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const skippedOf = (output: Record<string, unknown>) => JSON.parse(JSON.stringify(output.skipped)) as { item: string; reason: string }[];

describe.skipIf(!peerUrl)("zipline v4 with its S3 datasource", () => {
  let peer: { url: string; drop(): Promise<void> };
  const bytes: Record<string, Buffer> = {};

  beforeAll(async () => {
    bytes["s3Abc1.png"] = await png(41);
    bytes["my s3 é.png"] = await png(42);
    const sql = `${V4_TABLES}
      INSERT INTO "Zipline" ("id", "updatedAt", "coreTempDirectory") VALUES ('z', now(), '/tmp/zipline');
      INSERT INTO "User" ("id", "updatedAt", "username", "password", "token") VALUES ('u1', now(), 'sam', NULL, 't1');
      INSERT INTO "File" ("id", "updatedAt", "name", "originalName", "size", "type", "userId") VALUES
        ('f1', now(), 's3Abc1.png', 'from the bucket.png', 1, 'image/png', 'u1'),
        ('f2', now(), 'my s3 é.png', 'my s3 é.png', 1, 'image/png', 'u1'),
        ('f3', now(), 'gone99.png', 'gone.png', 1, 'image/png', 'u1');`;
    peer = await peerSchema(peerUrl!, `zipline_s3_${randomBytes(4).toString("hex")}`, sql);
    // DATASOURCE_S3_SUBDIRECTORY=zipline/files: every key is that folder + the file's name.
    await putObjects({ "zipline/files/s3Abc1.png": bytes["s3Abc1.png"], "zipline/files/my s3 é.png": bytes["my s3 é.png"] });
  });
  afterAll(async () => {
    await peer?.drop();
  });

  it("reads each file from the bucket under the subdirectory, byte for byte; a missing object is skipped; a second run changes nothing", async () => {
    const user = await createTestUser({ plan: "ultra" });
    const argv = ["import", "zipline", "--from", peer.url, "--bucket", `s3://${BUCKET}/zipline/files/`, "--s3-endpoint", endpoint];
    const out = await admin(...argv, "--old-host", "zl.s3.example", "--user", user.username);
    expect(out.exitCode, JSON.stringify(out.output)).toBe(0);
    expect(out.output).toMatchObject({ files: { imported: 2 } });
    expect(skippedOf(out.output)).toEqual([
      { item: "file file:f3 (gone.png)", reason: `missing in the bucket (s3://${BUCKET}/zipline/files/gone99.png)` },
    ]);
    expect(sha(await storedBytes("s3Abc1"))).toBe(sha(bytes["s3Abc1.png"]));
    const spaced = await db().importedItem.findFirstOrThrow({ where: { key: "file:f2" }, include: { post: true } });
    expect(sha(await storedBytes(spaced.post!.code))).toBe(sha(bytes["my s3 é.png"]));

    const again = await admin(...argv, "--old-host", "zl.s3.example", "--user", user.username);
    expect(again.output).toMatchObject({ files: { imported: 0, already_imported: 2 } });
  });
});

describe("chibisafe with files on disk and in its bucket", () => {
  const dbPath = join(scratch, "chibi.sqlite");
  const uploads = join(scratch, "chibi-uploads");
  const bytes: Record<string, Buffer> = {};

  beforeAll(async () => {
    bytes["Disk0001.png"] = await png(51);
    bytes["Buck0001.png"] = await png(52);
    mkdirSync(uploads, { recursive: true });
    writeFileSync(join(uploads, "Disk0001.png"), bytes["Disk0001.png"]);
    // Chibisafe's network storage keys each object by the file's name, at the bucket's root.
    await putObjects({ "Buck0001.png": bytes["Buck0001.png"] });
    const peer = new Database(dbPath);
    peer.exec(`
      CREATE TABLE "users" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "uuid" TEXT NOT NULL, "username" TEXT NOT NULL, "password" TEXT NOT NULL);
      CREATE TABLE "files" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "uuid" TEXT NOT NULL, "userId" INTEGER, "name" TEXT NOT NULL,
        "original" TEXT NOT NULL, "type" TEXT NOT NULL, "size" TEXT NOT NULL, "hash" TEXT NOT NULL, "ip" TEXT NOT NULL,
        "isS3" BOOLEAN NOT NULL DEFAULT false, "isWatched" BOOLEAN NOT NULL DEFAULT false,
        "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, "editedAt" DATETIME, "quarantine" BOOLEAN NOT NULL DEFAULT false);
    `);
    const file = peer.prepare(
      `INSERT INTO "files" ("uuid", "userId", "name", "original", "type", "size", "hash", "ip", "isS3", "createdAt") VALUES (?, NULL, ?, ?, 'image/png', '1', 'h', '127.0.0.1', ?, ?)`,
    );
    file.run("f-1", "Disk0001.png", "on disk.png", 0, 1_650_000_000_000);
    file.run("f-2", "Buck0001.png", "in bucket.png", 1, 1_650_000_000_001);
    file.run("f-3", "Gone0001.png", "gone from bucket.png", 1, 1_650_000_000_002);
    peer.close();
  });

  it("without --bucket, names the files kept in the bucket; with it, brings them too", async () => {
    const user = await createTestUser({ plan: "ultra" });
    const base = ["import", "chibisafe", "--from", dbPath, "--old-host", "chibi.s3.example", "--user", user.username];
    const diskOnly = await admin(...base, "--uploads", uploads, "--dry-run");
    expect(diskOnly.output).toMatchObject({ files: { would_import: 1 } });
    expect(skippedOf(diskOnly.output).map((s) => s.reason)).toEqual([
      "kept in the peer's S3 bucket: give --bucket",
      "kept in the peer's S3 bucket: give --bucket",
    ]);

    const out = await admin(...base, "--uploads", uploads, "--bucket", `s3://${BUCKET}`, "--s3-endpoint", endpoint);
    expect(out.exitCode, JSON.stringify(out.output)).toBe(0);
    expect(out.output).toMatchObject({ files: { imported: 2 } });
    expect(skippedOf(out.output)).toEqual([
      { item: "file file:3 (gone from bucket.png)", reason: `missing in the bucket (s3://${BUCKET}/Gone0001.png)` },
    ]);
    expect(sha(await storedBytes("Disk0001"))).toBe(sha(bytes["Disk0001.png"]));
    expect(sha(await storedBytes("Buck0001"))).toBe(sha(bytes["Buck0001.png"]));
  });

  it("refuses a bucket that is not there, and a --bucket that is not s3://", async () => {
    const user = await createTestUser();
    const base = ["import", "chibisafe", "--from", dbPath, "--old-host", "chibi.s3.example", "--user", user.username];
    const missing = await admin(...base, "--bucket", "s3://no-such-bucket", "--s3-endpoint", endpoint);
    expect(missing.output.error).toMatchObject({ type: "invalid_request", message: expect.stringMatching(/no bucket no-such-bucket/) });
    const wrong = await admin(...base, "--bucket", "https://example.com/x");
    expect(wrong.output.error).toMatchObject({ type: "invalid_request", message: expect.stringMatching(/s3:\/\/BUCKET/) });
    const stray = await admin(...base, "--uploads", uploads, "--s3-endpoint", endpoint);
    expect(stray.output.error).toMatchObject({ type: "invalid_request", message: expect.stringMatching(/go with --bucket/) });
  });
});
