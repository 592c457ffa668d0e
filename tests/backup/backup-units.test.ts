/**
 * lib/backup on hand-made DATA_DIRs (real files, a real SQLite database in WAL mode with a
 * second connection writing), and the CLI table's `backup` entries through runAdmin.
 */
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBackup } from "@/lib/backup/create";
import { MANIFEST_NAME } from "@/lib/backup/manifest";
import { restoreBackup } from "@/lib/backup/restore";
import { verifyBackup } from "@/lib/backup/verify";
import { runAdmin } from "@/lib/cli/admin";
import type { DatabaseConfig } from "@/lib/db/config";
import { expectDomainError } from "../cli/helpers";

const scratch = mkdtempSync(join(tmpdir(), "mediahost-backup-units-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let n = 0;
let data: string;
let out: string;
let writer: Database.Database | undefined;
const sqlite = (): DatabaseConfig => ({ provider: "sqlite", url: join(data, "mediahost.db") });

function write(path: string, content: string | Buffer): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, content);
}

beforeEach(() => {
  n++;
  data = join(scratch, `data-${n}`);
  out = join(scratch, `backup-${n}`);
  mkdirSync(data);
  // The server's database: WAL mode, and a connection that stays open after writing, so
  // the rows live in the -wal file (a plain copy of mediahost.db would miss them).
  writer = new Database(join(data, "mediahost.db"));
  writer.pragma("journal_mode = WAL");
  writer.pragma("wal_autocheckpoint = 0");
  writer.exec("CREATE TABLE post (code TEXT PRIMARY KEY)");
  writer.prepare("INSERT INTO post VALUES (?)").run("abc123");
  write(join(data, "signing-secret"), "s".repeat(64));
  chmodSync(join(data, "signing-secret"), 0o600);
  write(join(data, "files/f/abc123/shot.png"), Buffer.from("png bytes"));
  write(join(data, "files/f/abc123/.notes.type"), "text/plain"); // a content-type sidecar: part of the object
  write(join(data, "files/f/abc123/.shot.png.k3j2.tmp"), "half a put"); // a put in progress: not an object
  write(join(data, "tmp/req-1/part-0"), "upload in flight");
});
afterEach(() => {
  writer?.close();
  writer = undefined;
});

describe("backup create", () => {
  it("copies the database (rows still in the WAL included), the signing secret and the stored files, nothing temporary", async () => {
    expect(statSync(join(data, "mediahost.db-wal")).size).toBeGreaterThan(0);
    const summary = await createBackup(out, { dataDir: data, database: sqlite(), storage: "disk" });
    expect(summary).toMatchObject({
      out,
      database: { provider: "sqlite", included: true },
      files: { storage: "disk", included: true, count: 2 },
      entries: 4,
    });

    const copy = new Database(join(out, "mediahost.db"), { readonly: true });
    expect(copy.prepare("SELECT code FROM post").all()).toEqual([{ code: "abc123" }]);
    copy.close();
    const manifest = JSON.parse(readFileSync(join(out, MANIFEST_NAME), "utf8")) as {
      entries: { path: string; size: number; sha256: string }[];
    };
    expect(manifest.entries.map((e) => e.path)).toEqual([
      "mediahost.db",
      "signing-secret",
      "files/f/abc123/.notes.type",
      "files/f/abc123/shot.png",
    ]);
    expect(manifest.entries[3]).toEqual({
      path: "files/f/abc123/shot.png",
      size: 9,
      sha256: createHash("sha256").update("png bytes").digest("hex"),
    });
    expect(existsSync(join(out, "tmp"))).toBe(false);
    expect(statSync(out).mode & 0o777).toBe(0o700);
    expect(statSync(join(out, "signing-secret")).mode & 0o777).toBe(0o600);
    expect((await verifyBackup(out)).problems).toEqual([]);
  });

  it("refuses a non-empty --out and one inside DATA_DIR", async () => {
    write(join(out, "something"), "x");
    await expectDomainError(createBackup(out, { dataDir: data, database: sqlite(), storage: "disk" }), "invalid_request");
    await expectDomainError(createBackup(join(data, "backups"), { dataDir: data, database: sqlite(), storage: "disk" }), "invalid_request");
  });

  it("on PostgreSQL says pg_dump takes the database, and still copies the files", async () => {
    const summary = await createBackup(out, {
      dataDir: data,
      database: { provider: "postgres", url: "postgresql://x@127.0.0.1/db" },
      storage: "disk",
    });
    expect(summary.database).toMatchObject({ provider: "postgres", included: false, message: expect.stringContaining("pg_dump") });
    expect(summary.files).toMatchObject({ included: true, count: 2 });
    expect(existsSync(join(out, "mediahost.db"))).toBe(false);
  });

  it("with S3 storage, says the files stay in the bucket", async () => {
    const summary = await createBackup(out, { dataDir: data, database: sqlite(), storage: "s3" });
    expect(summary.files).toMatchObject({ storage: "s3", included: false, count: 0, message: expect.stringContaining("S3 bucket") });
  });
});

describe("backup verify", () => {
  it("names a changed, a truncated, a missing and an unexpected file", async () => {
    await createBackup(out, { dataDir: data, database: sqlite(), storage: "disk" });
    write(join(out, "signing-secret"), "t".repeat(64)); // same size, other bytes
    write(join(out, "files/f/abc123/shot.png"), "png"); // truncated
    rmSync(join(out, "files/f/abc123/.notes.type"));
    write(join(out, "files/f/stray.png"), "?");
    const result = await verifyBackup(out);
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([
      { path: "signing-secret", problem: "sha256_mismatch" },
      { path: "files/f/abc123/.notes.type", problem: "missing" },
      { path: "files/f/abc123/shot.png", problem: "size_mismatch" },
      { path: "files/f/stray.png", problem: "unexpected" },
    ]);
  });

  it("refuses a folder without a manifest, and a manifest whose paths leave the folder", async () => {
    await expectDomainError(verifyBackup(out), "invalid_request");
    await createBackup(out, { dataDir: data, database: sqlite(), storage: "disk" });
    const manifest = JSON.parse(readFileSync(join(out, MANIFEST_NAME), "utf8")) as { entries: { path: string }[] };
    for (const path of ["../outside", "/etc/passwd", "files/../../x", "files//x"]) {
      manifest.entries[0].path = path;
      writeFileSync(join(out, MANIFEST_NAME), JSON.stringify(manifest));
      const error = await expectDomainError(verifyBackup(out), "invalid_request");
      expect(error.message, path).toMatch(/entries\.0\.path/);
    }
  });
});

describe("backup restore", () => {
  it("fills an empty DATA_DIR with the same bytes, and refuses a non-empty one", async () => {
    await createBackup(out, { dataDir: data, database: sqlite(), storage: "disk" });
    const target = join(scratch, `restored-${n}`);
    const database: DatabaseConfig = { provider: "sqlite", url: join(target, "mediahost.db") };
    const summary = await restoreBackup(out, { dataDir: target, database });
    expect(summary).toMatchObject({ data_dir: target, restored: 4, database: { provider: "sqlite", restored: true } });
    expect(readFileSync(join(target, "files/f/abc123/shot.png"), "utf8")).toBe("png bytes");
    expect(readFileSync(join(target, "files/f/abc123/.notes.type"), "utf8")).toBe("text/plain");
    expect(statSync(join(target, "signing-secret")).mode & 0o777).toBe(0o600);
    const restored = new Database(database.url, { readonly: true });
    expect(restored.prepare("SELECT code FROM post").all()).toEqual([{ code: "abc123" }]);
    restored.close();

    await expectDomainError(restoreBackup(out, { dataDir: target, database }), "invalid_request");
  });

  it("refuses when DATABASE_URL=file: points at an existing database, or names PostgreSQL", async () => {
    await createBackup(out, { dataDir: data, database: sqlite(), storage: "disk" });
    const existing = join(scratch, `elsewhere-${n}.db`);
    writeFileSync(existing, "");
    await expectDomainError(
      restoreBackup(out, { dataDir: join(scratch, `r1-${n}`), database: { provider: "sqlite", url: existing } }),
      "invalid_request",
    );
    await expectDomainError(
      restoreBackup(out, { dataDir: join(scratch, `r2-${n}`), database: { provider: "postgres", url: "postgresql://x@h/db" } }),
      "invalid_request",
    );
  });
});

describe("the CLI table", () => {
  it("lists the backup commands and checks their flags before doing anything", async () => {
    const help = await runAdmin(["help"]);
    expect(help.output.commands).toEqual(
      expect.arrayContaining(["backup create --out DIR", "backup verify --from DIR", "backup restore --from DIR", "media tools"]),
    );
    const missing = await runAdmin(["backup", "create"]);
    expect(missing).toMatchObject({
      exitCode: 1,
      output: { error: { type: "invalid_request", message: "backup create: --out is required." } },
    });
  });

  it("never migrates first, and a failed verify is an invalid_request that lists the problems", async () => {
    await createBackup(out, { dataDir: data, database: sqlite(), storage: "disk" });
    rmSync(join(out, "signing-secret"));
    let migrated = false;
    const result = await runAdmin(["backup", "verify", "--from", out], { beforeRun: async () => (migrated = true) });
    expect(migrated).toBe(false);
    expect(result).toEqual({
      exitCode: 1,
      output: {
        error: {
          type: "invalid_request",
          message: "The backup fails verification: signing-secret (missing).",
          from: out,
          checked: 4,
          problems: [{ path: "signing-secret", problem: "missing" }],
        },
      },
    });
    const ok = await runAdmin(["user", "create", "--username", "x"], {
      beforeRun: async () => Promise.reject(new Error("migrations ran")),
      log: () => undefined,
    });
    expect(ok.output).toMatchObject({ error: { message: "migrations ran" } });
  });
});
