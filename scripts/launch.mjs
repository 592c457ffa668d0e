#!/usr/bin/env node
/**
 * `npm start`: runs scripts/start.ts (build when needed, migrate, serve) as plain
 * JavaScript. The TypeScript of scripts/ and lib/ is bundled into one ES module by the
 * esbuild binary (under a second, in a child process) and imported; packages stay in
 * node_modules.
 *
 * Why not `node --import tsx scripts/start.ts`, as before: a server that compiles its own
 * sources at run time keeps the loader, every module's transformed text and source map
 * for good. Measured idle, the same server took ~335 MB under tsx and ~250 MB from the
 * bundle (docs/performance.md, "Read path"). Development (`npm run dev`), the admin CLI
 * and the tests' in-process code still run the sources through tsx.
 *
 * Stack traces point into the bundle, which is readable JavaScript with a `// lib/...`
 * line above each module; NODE_OPTIONS=--enable-source-maps maps them back to the
 * TypeScript (the source map is written beside the bundle, and costs memory when loaded).
 *
 * Each bundle lives in a folder named after its content hash (see writableCacheDir), so
 * servers started at the same moment (parallel tests) never read a half-written file.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const root = resolve(import.meta.dirname, "..");
/**
 * Where bundles go: node_modules/.cache (out of reach of `next build`, which empties .next/),
 * or .next/ when node_modules is read-only (an image built as root, run as another user).
 * Either way inside the project, so the bundle's package imports resolve to node_modules.
 */
function writableCacheDir() {
  for (const dir of [join(root, "node_modules", ".cache", "mediahost"), join(root, ".next", "mediahost-server")]) {
    try {
      mkdirSync(dir, { recursive: true });
      accessSync(dir, constants.W_OK);
      return dir;
    } catch {
      // not writable: try the next place
    }
  }
  console.error("[mediahost] neither node_modules/.cache nor .next is writable: cannot prepare the server");
  process.exit(1);
}
const cacheDir = writableCacheDir();
const esbuild = createRequire(import.meta.url).resolve("esbuild/bin/esbuild");

const work = join(cacheDir, `build-${process.pid}-${Date.now()}`);
mkdirSync(work, { recursive: true });
const args = [
  join(root, "scripts", "start.ts"),
  "--bundle",
  "--platform=node",
  "--format=esm",
  "--target=node20",
  // Native addons, Next and Prisma's runtime load from node_modules as they are.
  "--packages=external",
  `--tsconfig=${join(root, "tsconfig.json")}`,
  "--sourcemap=linked",
  "--log-level=warning",
  `--outfile=${join(work, "start.mjs")}`,
];
// esbuild/bin/esbuild is the native binary once esbuild's install script has run, and a
// node script that finds the binary otherwise: run it as a program, else through node.
const options = { cwd: root, stdio: ["ignore", "inherit", "inherit"] };
let built = spawnSync(esbuild, args, options);
if (built.error) built = spawnSync(process.execPath, [esbuild, ...args], options);
if (built.status !== 0) {
  rmSync(work, { recursive: true, force: true });
  console.error(`[mediahost] could not bundle scripts/start.ts (esbuild exited ${built.status ?? built.signal})`);
  process.exit(1);
}

const hash = createHash("sha256").update(readFileSync(join(work, "start.mjs"))).digest("hex").slice(0, 16);
const target = join(cacheDir, hash);
if (existsSync(target)) {
  rmSync(work, { recursive: true, force: true });
} else {
  try {
    renameSync(work, target);
  } catch {
    // Another start won the race with the same bundle: use theirs.
    rmSync(work, { recursive: true, force: true });
  }
}
// Older bundles go once nothing can still be starting from them (an hour is ample).
for (const name of readdirSync(cacheDir)) {
  const path = join(cacheDir, name);
  if (path !== target && /^(?:[0-9a-f]{16}|build-.*)$/.test(name) && Date.now() - statSync(path).mtimeMs > 3_600_000) {
    rmSync(path, { recursive: true, force: true });
  }
}
await import(pathToFileURL(join(target, "start.mjs")).href);
