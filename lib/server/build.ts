/**
 * A production build is reused while its sources are unchanged: the fingerprint hashes contents,
 * not mtimes (a checkout or copy resets those), stored in .next/.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { buildIslands } from "./islands-build";
import { precompressStaticAssets } from "./static-assets";

const INPUT_DIRS = ["app", "components", "lib", "public"];
const INPUT_FILES = [
  "next.config.mjs",
  // Next's middleware: the security headers and link domains (docs/security-headers.md).
  "proxy.ts",
  "instrumentation.ts",
  "tailwind.config.ts",
  "postcss.config.mjs",
  "package-lock.json",
  "tsconfig.json",
  // The generated client (excluded below, it is rewritten on every install) follows from this.
  "prisma/schema.base.prisma",
];
const EXCLUDED = new Set(["lib/db/generated"]);
const FINGERPRINT_FILE = join(".next", "mediahost-fingerprint");
const LOCK_DIR = ".next-build.lock";

function listFiles(root: string, dir: string, out: string[]): void {
  const abs = join(root, dir);
  if (!existsSync(abs)) return;
  for (const entry of readdirSync(abs, { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (EXCLUDED.has(rel) || entry.name === "node_modules" || entry.name === ".DS_Store") continue;
    if (entry.isDirectory()) listFiles(root, rel, out);
    else if (entry.isFile()) out.push(rel);
  }
}

/** A hash of every build input, and of the NEXT_PUBLIC_* variables Next inlines into the bundle. */
export function sourceFingerprint(root: string, env: NodeJS.ProcessEnv = process.env): string {
  const files: string[] = [];
  for (const dir of INPUT_DIRS) listFiles(root, dir, files);
  for (const file of INPUT_FILES) if (existsSync(join(root, file))) files.push(file);
  files.sort();
  const hash = createHash("sha256");
  for (const file of files) {
    hash
      .update(file)
      .update("\0")
      .update(readFileSync(join(root, file)))
      .update("\0");
  }
  for (const name of Object.keys(env)
    .filter((k) => k.startsWith("NEXT_PUBLIC_"))
    .sort()) {
    hash.update(`${name}=${env[name]}\0`);
  }
  return hash.digest("hex");
}

export function staleReason(root: string): string | null {
  if (!existsSync(join(root, ".next", "BUILD_ID"))) return "no build yet";
  const stored = existsSync(join(root, FINGERPRINT_FILE)) ? readFileSync(join(root, FINGERPRINT_FILE), "utf8").trim() : "";
  if (stored !== sourceFingerprint(root)) return "sources changed since the last build";
  return null;
}

export function runNextBuild(root: string, stdio: "inherit" | "pipe" = "inherit"): Promise<void> {
  const bin = join(root, "node_modules", "next", "dist", "bin", "next");
  // The fingerprint is taken before building: a source edited mid-build then still
  // counts as changed on the next start.
  const fingerprint = sourceFingerprint(root);
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, "build"], {
      cwd: root,
      stdio: stdio === "inherit" ? "inherit" : ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
    });
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", fail);
    child.on("exit", (code, signal) => {
      if (code === 0) {
        afterNextBuild(root).then(() => {
          writeFileSync(join(root, FINGERPRINT_FILE), `${fingerprint}\n`);
          done();
        }, fail);
      } else {
        const tail = output ? `\n${output.slice(-4000)}` : "";
        fail(new Error(`next build failed (${signal ?? `exit code ${code}`})${tail}`));
      }
    });
  });
}

/** The dashboard's own bundle (islands-build.ts), then every script and style sheet compressed once here, not per request (static-assets.ts). */
async function afterNextBuild(root: string): Promise<void> {
  await buildIslands(root);
  precompressStaticAssets(root);
}

const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** Serialises builds across processes: a lock directory holding the owner's pid, taken over when it died. */
async function withBuildLock<T>(root: string, work: () => Promise<T>, timeoutMs = 10 * 60_000): Promise<T> {
  const lock = join(root, LOCK_DIR);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, "pid"), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const pidFile = join(lock, "pid");
      const owner = existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8")) : NaN;
      // No pid yet: the owner is between mkdir and write; only a long-standing one is stale.
      const stale = Number.isFinite(owner) ? !processAlive(owner) : Date.now() - statSync(lock).mtimeMs > 30_000;
      if (stale) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the build lock ${lock}`);
      await new Promise((done) => setTimeout(done, 500));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Builds when .next is missing or stale; returns whether it built. One process builds, others wait. */
export async function ensureBuild(
  root: string,
  options: { stdio?: "inherit" | "pipe"; log?: (message: string) => void } = {},
): Promise<boolean> {
  const rootDir = resolve(root);
  if (staleReason(rootDir) === null) return false;
  return withBuildLock(rootDir, async () => {
    const reason = staleReason(rootDir);
    if (reason === null) return false;
    options.log?.(`building (${reason})`);
    await runNextBuild(rootDir, options.stdio ?? "inherit");
    return true;
  });
}
