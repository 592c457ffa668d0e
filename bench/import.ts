/**
 * `npm run bench:import`: the peak memory of a large import (issue 41: 100 000 files must stay
 * under 300 MB RSS). BENCH_IMPORT_N rows (default 20 000) of a Chibisafe v6 database (its
 * SQLite schema, as tests/imports/sqlite-peers.test.ts builds it) and as many small files in
 * its uploads folder are generated in a temporary folder; `admin import chibisafe` then runs
 * as operators run it (scripts/launch.mjs, a fresh SQLite DATA_DIR, UPLOAD_FILES=all), while
 * this process samples the child's RSS from /proc every 100 ms. Every row has 64 random bytes
 * of its own (stored as a plain file, the cheapest kind: what is measured is the import's
 * memory, not the media pipeline's).
 *
 * Prints progress lines, then one JSON object: {n, imported, seconds, files_per_second,
 * peak_rss_mb, target_mb}. A second run of the same import is timed too (everything is
 * already imported: the cost of resuming). Settings: BENCH_IMPORT_N, BENCH_IMPORT_KEEP=1
 * (keep the temporary folder).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";

const N = Number(process.env.BENCH_IMPORT_N ?? 20_000);
const TARGET_MB = 300;
const root = mkdtempSync(join(tmpdir(), "bench-import-"));
const uploads = join(root, "uploads");
const dataDir = join(root, "data");
mkdirSync(uploads);
mkdirSync(dataDir);

function makePeer(): string {
  const path = join(root, "database.sqlite");
  const db = new Database(path);
  db.exec(`
    CREATE TABLE "users" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "uuid" TEXT NOT NULL, "username" TEXT NOT NULL,
      "password" TEXT NOT NULL, "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);
    CREATE TABLE "files" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "uuid" TEXT NOT NULL, "userId" INTEGER, "name" TEXT NOT NULL,
      "original" TEXT NOT NULL, "type" TEXT NOT NULL, "size" TEXT NOT NULL, "hash" TEXT NOT NULL, "ip" TEXT NOT NULL,
      "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, "quarantine" BOOLEAN NOT NULL DEFAULT false);
  `);
  db.prepare(`INSERT INTO "users" ("uuid", "username", "password") VALUES ('u', 'bench', '$2b$10$x')`).run();
  const insert = db.prepare(
    `INSERT INTO "files" ("uuid", "userId", "name", "original", "type", "size", "hash", "ip", "createdAt") VALUES (?, 1, ?, ?, 'application/octet-stream', '64', 'h', '127.0.0.1', ?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < N; i++) {
      const name = `B${i.toString(36).padStart(7, "0")}.bin`;
      writeFileSync(join(uploads, name), randomBytes(64));
      insert.run(`f-${i}`, name, `file ${i}.bin`, 1_600_000_000_000 + i);
    }
  })();
  db.close();
  return path;
}

/** Runs the admin CLI; resolves with its JSON, the peak RSS seen (MB) and the seconds it took. */
function admin(args: string[]): Promise<{ json: Record<string, unknown>; peakMb: number; seconds: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, ["scripts/launch.mjs", "admin", ...args], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", UPLOAD_FILES: "all", STORAGE: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let peakKb = 0;
  // The launcher may run the CLI in a child of its own: the whole tree's largest process counts.
  const sample = () => {
    for (const pid of [child.pid!, ...children(child.pid!)]) {
      try {
        const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
        peakKb = Math.max(peakKb, kb);
      } catch {
        // gone
      }
    }
  };
  const timer = setInterval(sample, 100);
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  let lastLine = 0;
  child.stderr.on("data", (c: Buffer) => {
    // Every line but the progress counts (those only at most every 10 s): a failure is shown whole.
    for (const line of c.toString().trim().split("\n")) {
      const progress = line.startsWith("[");
      if (progress && Date.now() - lastLine < 10_000) continue;
      if (progress) lastLine = Date.now();
      process.stderr.write(`  ${line}\n`);
    }
  });
  return new Promise((resolve, reject) => {
    child.on("exit", (code, signal) => {
      clearInterval(timer);
      if (code !== 0) process.stderr.write(`  the CLI exited with ${code ?? signal}\n`);
      try {
        resolve({ json: JSON.parse(stdout) as Record<string, unknown>, peakMb: peakKb / 1024, seconds: (Date.now() - started) / 1000 });
      } catch (error) {
        reject(error);
      }
    });
  });
}

function children(pid: number): number[] {
  try {
    const direct = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
    return direct.flatMap((c) => [c, ...children(c)]);
  } catch {
    return [];
  }
}

async function main(): Promise<void> {
  process.stderr.write(`generating ${N} Chibisafe rows and files in ${root}\n`);
  const peer = makePeer();
  await admin(["user", "create", "--username", "bench", "--plan", "ultra"]);
  const args = ["import", "chibisafe", "--from", peer, "--uploads", uploads, "--old-host", "bench.old.example", "--user", "bench"];
  const first = await admin(args);
  const files = first.json.files as { imported: number };
  const again = await admin(args);
  const result = {
    n: N,
    imported: files.imported,
    seconds: Number(first.seconds.toFixed(1)),
    files_per_second: Number((files.imported / first.seconds).toFixed(1)),
    peak_rss_mb: Number(first.peakMb.toFixed(1)),
    second_run_seconds: Number(again.seconds.toFixed(1)),
    second_run_peak_rss_mb: Number(again.peakMb.toFixed(1)),
    target_mb: TARGET_MB,
  };
  if (!process.env.BENCH_IMPORT_KEEP) rmSync(root, { recursive: true, force: true });
  console.log(JSON.stringify(result));
}

void main();
