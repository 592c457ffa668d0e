/**
 * Backups end to end (docs/operations.md, "Backup" and "Restore"): posts uploaded to a
 * real server, `backup create` run as the operator runs it while more uploads go on,
 * `backup verify`, `backup restore` into a fresh DATA_DIR and a second server started on
 * it: every post the backup holds is answered and every file is byte-identical. Then a
 * corrupted file in the backup is named by `verify` and refused by `restore`.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startTestServer, type TestServer } from "../support/server";

const run = promisify(execFile);

interface CliAnswer {
  code: number;
  json: Record<string, unknown>;
}

/** The admin CLI as a process on `dataDir`: exit code and its one JSON object. */
async function admin(dataDir: string, ...args: string[]): Promise<CliAnswer> {
  const options = { env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", STORAGE: "" } };
  try {
    const { stdout } = await run(process.execPath, ["scripts/launch.mjs", "admin", ...args], options);
    return { code: 0, json: JSON.parse(stdout) as Record<string, unknown> };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    return { code: failed.code ?? -1, json: JSON.parse(failed.stdout ?? "{}") as Record<string, unknown> };
  }
}

const sha256 = (data: Buffer | ArrayBuffer): string =>
  createHash("sha256")
    .update(Buffer.from(data as ArrayBuffer))
    .digest("hex");

/** A small PNG of its own: every upload stores different bytes. */
const png = (n: number): Promise<Buffer> =>
  sharp({ create: { width: 16 + (n % 7), height: 12, channels: 3, background: { r: (n * 37) % 256, g: (n * 91) % 256, b: n % 256 } } })
    .png()
    .toBuffer();

interface Uploaded {
  code: string;
  /** Path and query of each file URL (the origin changes with the server), with its SHA-256. */
  files: { path: string; sha256: string }[];
}

const scratch = mkdtempSync(join(tmpdir(), "mediahost-backup-e2e-"));
const backupDir = join(scratch, "backup");
const restoredDir = join(scratch, "restored");
let original: TestServer;
let restored: TestServer | undefined;
let key = "";
const before: Uploaded[] = [];
const during: Uploaded[] = [];

const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

async function upload(server: TestServer, n: number): Promise<Uploaded> {
  // More than 8 uploads in one second suspends the account (docs/uploads.md): a steady user, not a burst.
  await pause(150);
  const body = new FormData();
  body.append("file", new Blob([new Uint8Array(await png(n))], { type: "image/png" }), `shot-${n}.png`);
  const res = await fetch(`${server.url}/api/upload`, { method: "POST", body, headers: { "api-key": key, "post-privacy": "unlisted" } });
  const answer = (await res.json()) as { post: { code: string; files: { url: string; thumbnail_url: string | null }[] } };
  expect(res.status, JSON.stringify(answer)).toBe(200);
  const files: Uploaded["files"] = [];
  for (const file of answer.post.files) {
    for (const url of [file.url, file.thumbnail_url]) {
      if (!url) continue;
      const got = await fetch(url);
      expect(got.status).toBe(200);
      const parsed = new URL(url);
      files.push({ path: parsed.pathname + parsed.search, sha256: sha256(await got.arrayBuffer()) });
    }
  }
  return { code: answer.post.code, files };
}

beforeAll(async () => {
  const port = await freePort();
  original = await startTestServer({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, DATABASE_URL: "", STORAGE: "" });
  await admin(original.dataDir, "user", "create", "--username", "backup_user");
  key = (await admin(original.dataDir, "app", "create", "--user", "backup_user")).json.key as string;
  for (let n = 0; n < 6; n++) before.push(await upload(original, n));
}, 300_000);

it("the server logs at start which ffmpeg and ffprobe it runs, with their versions (docs/media.md)", () => {
  expect(original.output()).toMatch(/\[mediahost\] media tools \((env|system|npm)\): ffmpeg \S+ \(\/\S+\), ffprobe \S+ \(\/\S+\)/);
});

afterAll(async () => {
  await restored?.stop();
  await original?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe("backup create, verify, restore", () => {
  it("takes a backup while uploads continue, and a restored server answers every post with identical files", async () => {
    // Uploads keep going (one after another, as a busy user's client would) while the backup runs.
    let stop = false;
    const uploading = (async () => {
      for (let n = 100; !stop && n < 130; n++) during.push(await upload(original, n));
    })();
    await pause(300);
    const created = await admin(original.dataDir, "backup", "create", "--out", backupDir);
    stop = true;
    await uploading;
    expect(created.code, JSON.stringify(created.json)).toBe(0);
    expect(created.json).toMatchObject({
      out: backupDir,
      database: { provider: "sqlite", included: true },
      files: { storage: "disk", included: true },
    });
    expect((created.json.files as { count: number }).count).toBeGreaterThanOrEqual(before.length);

    const verified = await admin(original.dataDir, "backup", "verify", "--from", backupDir);
    expect(verified).toMatchObject({ code: 0, json: { ok: true, problems: [] } });
    expect(verified.json.checked).toBe(created.json.entries);

    // restore refuses a DATA_DIR that holds anything: the original's, here.
    const refused = await admin(original.dataDir, "backup", "restore", "--from", backupDir);
    expect(refused.code).toBe(1);
    expect(refused.json).toMatchObject({ error: { type: "invalid_request" } });

    const restoring = await admin(restoredDir, "backup", "restore", "--from", backupDir);
    expect(restoring.code, JSON.stringify(restoring.json)).toBe(0);
    expect(restoring.json).toMatchObject({ data_dir: restoredDir, restored: created.json.entries, database: { restored: true } });

    const port = await freePort();
    restored = await startTestServer({
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: restoredDir,
      DATABASE_URL: "",
      STORAGE: "",
    });
    let answeredDuring = 0;
    for (const post of [...before, ...during]) {
      const res = await fetch(`${restored.url}/api/posts/${post.code}`, { headers: { "api-key": key } });
      // Posts made before the backup started are all there; those made during it may be.
      if (before.includes(post)) expect(res.status, post.code).toBe(200);
      else if (res.status === 404) continue;
      else answeredDuring++;
      expect(res.status, post.code).toBe(200);
      for (const file of post.files) {
        const got = await fetch(`${restored.url}${file.path}`);
        expect(got.status, file.path).toBe(200);
        expect(sha256(await got.arrayBuffer()), file.path).toBe(file.sha256);
      }
    }
    expect(during.length).toBeGreaterThan(0);
    // The log shows how many of the concurrent uploads made it into the snapshot.
    console.log(`backup e2e: ${before.length} posts before, ${during.length} during (${answeredDuring} in the backup)`);
  }, 300_000);

  it("verify names a corrupted and a missing file; restore refuses such a backup", async () => {
    const manifest = JSON.parse(readFileSync(join(backupDir, "manifest.json"), "utf8")) as { entries: { path: string }[] };
    const files = manifest.entries.map((e) => e.path).filter((p) => p.startsWith("files/"));
    const [corrupted, removed] = files;
    const bytes = readFileSync(join(backupDir, corrupted));
    bytes[bytes.length >> 1] ^= 0xff; // same size, one byte flipped
    writeFileSync(join(backupDir, corrupted), bytes);
    rmSync(join(backupDir, removed));

    const verified = await admin(scratch, "backup", "verify", "--from", backupDir);
    expect(verified.code).toBe(1);
    expect(verified.json).toMatchObject({ error: { type: "invalid_request" } });
    expect((verified.json.error as { problems: unknown }).problems).toEqual([
      { path: corrupted, problem: "sha256_mismatch" },
      { path: removed, problem: "missing" },
    ]);

    const target = join(scratch, "second-restore");
    const refused = await admin(target, "backup", "restore", "--from", backupDir);
    expect(refused.code).toBe(1);
    expect(refused.json).toMatchObject({ error: { type: "invalid_request" } });
    expect(String((refused.json.error as { message: string }).message)).toContain(corrupted);
  }, 120_000);
});
