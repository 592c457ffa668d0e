/**
 * Configuration read one way (issue 31 §6): every setting is checked before the server
 * starts (lib/server/settings.ts), a bad value stops the start with a message naming the
 * variable, and no module but lib/config/process-env.ts writes process.env.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkSettings } from "@/lib/server/settings";

const dataDir = mkdtempSync(join(tmpdir(), "settings-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** A bad value for each variable a subsystem used to parse on its own, and for the job settings that used to fall back quietly. */
const BAD: readonly [string, Record<string, string>][] = [
  ["MEDIA_CONCURRENCY", { MEDIA_CONCURRENCY: "many" }],
  ["MEDIA_QUEUE_MAX", { MEDIA_QUEUE_MAX: "-1" }],
  ["MEDIA_TIMEOUT_SECONDS", { MEDIA_TIMEOUT_SECONDS: "0" }],
  ["FFMPEG_SOURCE", { FFMPEG_SOURCE: "somewhere" }],
  ["HLS_THREADS", { HLS_THREADS: "0" }],
  ["HLS_X264_PRESET", { HLS_X264_PRESET: "fastest" }],
  ["CONVERT_TIMEOUT_SECONDS", { CONVERT_TIMEOUT_SECONDS: "soon" }],
  ["CONVERT_IN_MEMORY_MAX_BYTES", { CONVERT_IN_MEMORY_MAX_BYTES: "-1" }],
  ["PLAN_FREE_UPLOAD_FILE_MAX", { PLAN_FREE_UPLOAD_FILE_MAX: "lots" }],
  ["PLAN_TEAM_PRIORITY_MINUTES", { PLAN_TEAM_PRIORITY_MINUTES: "-3" }],
  ["MODERATION_WORDS_FILE", { MODERATION_WORDS_FILE: "/nonexistent/words.txt" }],
  ["MODERATION_HASHES_FILE", { MODERATION_HASHES_FILE: "/nonexistent/hashes.txt" }],
  ["UPLOAD_RECEIVE_SLOTS", { UPLOAD_RECEIVE_SLOTS: "many" }],
  ["UPLOAD_RECEIVE_STALL_MS", { UPLOAD_RECEIVE_STALL_MS: "0" }],
  ["UPLOAD_RECEIVE_HOLD_MS", { UPLOAD_RECEIVE_HOLD_MS: "soon" }],
  ["STORAGE", { STORAGE: "ftp" }],
  ["S3_BUCKET", { STORAGE: "s3" }],
  ["BLOB_READ_WRITE_TOKEN", { STORAGE: "blob" }],
  ["BLOB_ACCESS", { STORAGE: "blob", BLOB_READ_WRITE_TOKEN: "t", BLOB_ACCESS: "open" }],
  ["JOB_POLL_MS", { JOB_POLL_MS: "soon" }],
  ["JOB_RETRY_BASE_MS", { JOB_RETRY_BASE_MS: "-5" }],
  ["DATABASE_POOL_SIZE", { DATABASE_POOL_SIZE: "many" }],
  ["WEBHOOK_ATTEMPTS", { WEBHOOK_ATTEMPTS: "0" }],
];

describe("checkSettings", () => {
  it("accepts the defaults", () => {
    expect(() => checkSettings({ DATA_DIR: dataDir })).not.toThrow();
  });

  it.each(BAD)("refuses a bad %s, naming it", (name, values) => {
    expect(() => checkSettings({ DATA_DIR: dataDir, ...values })).toThrow(new RegExp(`\\b${name}\\b`));
  });

  it("stops the start, naming the variable, before anything is built or served", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", PORT: "0", HLS_THREADS: "none" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(`${run.stdout}${run.stderr}`).toMatch(/Invalid setting HLS_THREADS/);
    expect(run.stdout).not.toMatch(/listening on/);
  });
});

/** An assignment to, a merge into, or a delete from process.env. */
const write =
  /process\.env(?:\.[A-Za-z_][A-Za-z0-9_]*|\[[^\]]+\])\s*(?:=(?!=)|\|\|=|\?\?=|&&=)|Object\.assign\(\s*process\.env|delete\s+process\.env|Object\.defineProperty\(\s*process\.env/;

describe("process.env", () => {
  it("is written by lib/config/process-env.ts alone", () => {
    const files = execFileSync("git", ["ls-files", "lib", "app", "components", "scripts", "proxy.ts"], { encoding: "utf8" })
      .split("\n")
      .filter((f) => /\.(ts|tsx|mjs)$/.test(f) && !f.startsWith("lib/config/") && !f.startsWith("lib/db/generated/"));
    const writers = files.filter((file) => write.test(readFileSync(file, "utf8")));
    expect(writers).toEqual([]);
  });

  it("the pattern above catches each way of writing", () => {
    for (const line of [
      'process.env.X = "1"',
      'process.env.X ||= "1"',
      'process.env["X"] = "1"',
      "Object.assign(process.env, {})",
      "delete process.env.X",
    ])
      expect(line).toMatch(write);
    expect("process.env.X === 1").not.toMatch(write);
  });
});
