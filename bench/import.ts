/**
 * `npm run bench:import`: the peak memory of a large import (issue 41: 100 000 files must stay
 * under 300 MB RSS). BENCH_IMPORT_N rows (default 100 000) of a Chibisafe v6 database (its
 * SQLite schema, as tests/imports/sqlite-peers.test.ts builds it) and as many small files in
 * its uploads folder are generated in a temporary folder (a few seconds: 64 random bytes
 * each, one transaction for the rows); `admin import chibisafe` then runs as operators run it
 * (`node scripts/launch.mjs admin`, what `npm run admin` runs, with NODE_OPTIONS cleared so
 * no flag of ours reaches it; a fresh SQLite DATA_DIR; UPLOAD_FILES=all). What is measured is
 * that process: the kernel's own high-water mark of its resident set (VmHWM in /proc, read
 * every 100 ms while it runs, the largest of the process tree's), and its RSS (VmRSS) at each
 * tenth of the way, to show whether it grows with the items. Every file is stored as a
 * plain file, the cheapest kind: what is measured is the import's memory, not the media
 * pipeline's.
 *
 * Prints progress lines, then one JSON object: {n, imported, seconds, files_per_second,
 * peak_rss_mb, rss_mb_by_items, target_mb, ...}. A second run of the same import is measured
 * too (everything is already imported: the cost of resuming). Settings: BENCH_IMPORT_N,
 * BENCH_IMPORT_DATA_DIR (where the importing instance's DATA_DIR goes: default a temporary
 * folder; a tmpfs such as /dev/shm takes the disk's fsync latency out of the rate, and its
 * pages are not the process's RSS), BENCH_IMPORT_SECOND=0 (skip the second run),
 * BENCH_IMPORT_KEEP=1 (keep the temporary folders).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";

const N = Number(process.env.BENCH_IMPORT_N ?? 100_000);
const TARGET_MB = 300;
const root = mkdtempSync(join(tmpdir(), "bench-import-"));
const uploads = join(root, "uploads");
const dataDir = mkdtempSync(join(process.env.BENCH_IMPORT_DATA_DIR || root, "data-"));
mkdirSync(uploads);

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
  // One buffer of random bytes, sliced: every file its own 64 bytes, without 100 000 calls for them.
  const random = randomBytes(64 * N);
  db.transaction(() => {
    for (let i = 0; i < N; i++) {
      const name = `B${i.toString(36).padStart(7, "0")}.bin`;
      writeFileSync(join(uploads, name), random.subarray(64 * i, 64 * (i + 1)));
      insert.run(`f-${i}`, name, `file ${i}.bin`, 1_600_000_000_000 + i);
    }
  })();
  db.close();
  return path;
}

function children(pid: number): number[] {
  try {
    const direct = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
    return direct.flatMap((c) => [c, ...children(c)]);
  } catch {
    return [];
  }
}

/** VmHWM and VmRSS (kB) of the process tree's largest process. */
function memoryOf(pid: number): { hwm: number; rss: number } {
  let hwm = 0;
  let rss = 0;
  for (const p of [pid, ...children(pid)]) {
    try {
      const status = readFileSync(`/proc/${p}/status`, "utf8");
      hwm = Math.max(hwm, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
      rss = Math.max(rss, Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0));
    } catch {
      // gone
    }
  }
  return { hwm, rss };
}

interface Run {
  json: Record<string, unknown>;
  peakMb: number;
  seconds: number;
  /** RSS (MB) when the progress line first passed each tenth of N. */
  byItems: Record<string, number>;
}

/** Runs the admin CLI; resolves with its JSON, the peak RSS seen (MB), the RSS along the way and the seconds it took. */
function admin(args: string[]): Promise<Run> {
  const started = Date.now();
  const child = spawn(process.execPath, ["scripts/launch.mjs", "admin", ...args], {
    env: { ...process.env, NODE_OPTIONS: "", DATA_DIR: dataDir, DATABASE_URL: "", UPLOAD_FILES: "all", STORAGE: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let peakKb = 0;
  const byItems: Record<string, number> = {};
  let nextMark = N / 10;
  const timer = setInterval(() => {
    peakKb = Math.max(peakKb, memoryOf(child.pid!).hwm);
  }, 100);
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  let lastLine = 0;
  child.stderr.on("data", (c: Buffer) => {
    // Every line but the progress counts (those only at most every 30 s): a failure is shown whole.
    for (const line of c.toString().trim().split("\n")) {
      const items = /^\[(\d+) items\]/.exec(line);
      if (items && Number(items[1]) >= nextMark) {
        byItems[items[1]] = Math.round(memoryOf(child.pid!).rss / 1024);
        while (nextMark <= Number(items[1])) nextMark += N / 10;
      }
      if (items && Date.now() - lastLine < 30_000) continue;
      if (items) lastLine = Date.now();
      process.stderr.write(`  ${line}\n`);
    }
  });
  return new Promise((resolve, reject) => {
    child.on("exit", (code, signal) => {
      clearInterval(timer);
      if (code !== 0) process.stderr.write(`  the CLI exited with ${code ?? signal}\n`);
      try {
        resolve({
          json: JSON.parse(stdout) as Record<string, unknown>,
          peakMb: peakKb / 1024,
          seconds: (Date.now() - started) / 1000,
          byItems,
        });
      } catch (error) {
        reject(error);
      }
    });
  });
}

async function main(): Promise<void> {
  const generating = Date.now();
  process.stderr.write(`generating ${N} Chibisafe rows and files in ${root}\n`);
  const peer = makePeer();
  process.stderr.write(`generated in ${((Date.now() - generating) / 1000).toFixed(1)} s; DATA_DIR ${dataDir}\n`);
  await admin(["user", "create", "--username", "bench", "--plan", "ultra"]);
  const args = ["import", "chibisafe", "--from", peer, "--uploads", uploads, "--old-host", "bench.old.example", "--user", "bench"];
  const first = await admin(args);
  const files = first.json.files as { imported: number };
  const again = process.env.BENCH_IMPORT_SECOND === "0" ? null : await admin(args);
  const result = {
    n: N,
    imported: files.imported,
    skipped: (first.json.skipped as unknown[]).length,
    seconds: Number(first.seconds.toFixed(1)),
    files_per_second: Number((files.imported / first.seconds).toFixed(1)),
    peak_rss_mb: Number(first.peakMb.toFixed(1)),
    rss_mb_by_items: first.byItems,
    ...(again
      ? {
          second_run_seconds: Number(again.seconds.toFixed(1)),
          second_run_already: (again.json.files as { already_imported: number }).already_imported,
          second_run_peak_rss_mb: Number(again.peakMb.toFixed(1)),
        }
      : {}),
    target_mb: TARGET_MB,
  };
  if (!process.env.BENCH_IMPORT_KEEP) {
    rmSync(root, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(JSON.stringify(result));
}

void main();
