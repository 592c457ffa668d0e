#!/usr/bin/env node
/**
 * `npm start` and `npm run admin`: runs scripts/start.ts (build when needed, migrate, serve)
 * or scripts/admin.ts (the operator's CLI) as plain JavaScript. `node scripts/launch.mjs`
 * runs start; `node scripts/launch.mjs admin ...` runs the CLI with the remaining arguments.
 * The TypeScript of scripts/ and lib/ is bundled into one ES module by the esbuild binary
 * (in a child process) and imported; packages stay in node_modules (the CLI's bundle takes
 * in two, see packageOptions).
 *
 * Why not `node --import tsx scripts/start.ts`, as before: a server that compiles its own
 * sources at run time keeps the loader, every module's transformed text and source map
 * for good: the same server idles in much less memory from the bundle (docs/performance.md,
 * "The server runs bundled"). For the CLI the cost was time: tsx compiled
 * every module on each call (docs/admin-cli.md).
 *
 * A bundle is reused while its inputs are unchanged: esbuild's metafile lists the files it
 * read, and `<entry>.json` in the cache folder keeps that list with a hash of their
 * contents. Checking it (reading ~200 small files) takes ~10 ms; bundling takes about
 * a second. Development (`npm run dev`) and the tests' in-process code run the sources
 * through tsx.
 *
 * Stack traces point into the bundle, which is readable JavaScript with a `// lib/...`
 * line above each module; NODE_OPTIONS=--enable-source-maps maps them back to the
 * TypeScript (the source map is written beside the bundle, and costs memory when loaded).
 *
 * Each bundle lives in a folder named after its content hash (see writableCacheDir), so
 * processes started at the same moment (parallel tests) never read a half-written file.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
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

const ENTRIES = new Set(["start", "admin", "worker"]);
// `launch.mjs admin user list`: the entry's own code sees `user list` as its arguments.
const entry = ENTRIES.has(process.argv[2] ?? "") ? process.argv.splice(2, 1)[0] : "start";
const pointerFile = join(cacheDir, `${entry}.json`);

/** Bumped when the bundle's shape changes (2: split into chunks), so older pointers are not reused. */
const FORMAT = 2;

/**
 * A hash of the files a bundle was made from (paths relative to the project root). Package
 * files (the CLI's zod, ~100 of them) count by size and modification time: an install
 * rewrites them, and stat is a fraction of reading them on every call.
 */
function inputsDigest(inputs) {
  const hash = createHash("sha256");
  for (const file of inputs) {
    hash.update(file).update("\0");
    try {
      if (file.startsWith("node_modules/")) {
        const { size, mtimeMs } = statSync(join(root, file));
        hash.update(`${size}:${mtimeMs}`);
      } else {
        hash.update(readFileSync(join(root, file)));
      }
    } catch {
      hash.update("\u0000missing");
    }
    hash.update("\0");
  }
  return hash.digest("hex");
}

/** The bundle recorded for this entry when none of its inputs changed since, else null. */
function currentBundle() {
  try {
    const pointer = JSON.parse(readFileSync(pointerFile, "utf8"));
    const file = join(cacheDir, pointer.bundle, `${entry}.mjs`);
    if (pointer.format === FORMAT && existsSync(file) && inputsDigest(pointer.inputs) === pointer.digest) return file;
  } catch {
    // no pointer yet, or an unreadable one: bundle afresh
  }
  return null;
}

/**
 * Native addons, Next and Prisma's runtime load from node_modules as they are. The CLI's
 * bundle takes in zod and Prisma's client runtime (aliased to their files, which
 * --packages=external leaves alone): a call is over in a fraction of a second, and loading
 * them from node_modules cost ~0.1 s of it in Node's ES module loader (zod is ~90 modules)
 * and its CommonJS export scan (Node picks the runtime's 200 KB CommonJS build, the bundle
 * its ES module build). The server keeps them external (docs/admin-cli.md, "Speed").
 */
function packageOptions() {
  const inlined = entry !== "admin" ? {} : { zod: "zod/index.js", "@prisma/client/runtime/client": "@prisma/client/runtime/client.mjs" };
  const aliases = Object.entries(inlined)
    .map(([name, file]) => [name, join(root, "node_modules", file)])
    .filter(([, path]) => existsSync(path))
    .map(([name, path]) => `--alias:${name}=${path}`);
  return ["--packages=external", ...aliases];
}

/** Bundles the entry, records its inputs, and returns the bundle's path. */
function bundle() {
  const work = join(cacheDir, `build-${process.pid}-${Date.now()}`);
  mkdirSync(work, { recursive: true });
  const metafile = join(work, "meta.json");
  const args = [
    join(root, "scripts", `${entry}.ts`),
    "--bundle",
    "--platform=node",
    "--format=esm",
    // Code behind a dynamic import() goes into its own chunk: in one file, the static
    // imports of packages it needs (the S3 SDK, sharp, nodemailer) would be hoisted to the
    // top of the bundle and load on every start, though the code asked for them lazily.
    "--splitting",
    "--chunk-names=chunk-[hash]",
    "--out-extension:.js=.mjs",
    "--target=node20",
    ...packageOptions(),
    `--tsconfig=${join(root, "tsconfig.json")}`,
    "--sourcemap=linked",
    "--log-level=warning",
    `--metafile=${metafile}`,
    `--outdir=${work}`,
  ];
  // esbuild/bin/esbuild is the native binary once esbuild's install script has run, and a
  // node script that finds the binary otherwise: run it as a program, else through node.
  const options = { cwd: root, stdio: ["ignore", "inherit", "inherit"] };
  let built = spawnSync(esbuild, args, options);
  if (built.error) built = spawnSync(process.execPath, [esbuild, ...args], options);
  if (built.status !== 0) {
    rmSync(work, { recursive: true, force: true });
    console.error(`[mediahost] could not bundle scripts/${entry}.ts (esbuild exited ${built.status ?? built.signal})`);
    process.exit(1);
  }
  // tsconfig.json shapes how paths resolve and this file how the bundle is made, so both
  // count as inputs although esbuild does not list them.
  const inputs = [...Object.keys(JSON.parse(readFileSync(metafile, "utf8")).inputs), "tsconfig.json", "scripts/launch.mjs"].sort();
  rmSync(metafile);

  const hash = createHash("sha256")
    .update(readFileSync(join(work, `${entry}.mjs`)))
    .digest("hex")
    .slice(0, 16);
  const target = join(cacheDir, hash);
  if (existsSync(target)) {
    rmSync(work, { recursive: true, force: true });
  } else {
    try {
      renameSync(work, target);
    } catch {
      // Another process won the race with the same bundle: use theirs.
      rmSync(work, { recursive: true, force: true });
    }
  }
  const pointer = join(cacheDir, `${entry}.json.${process.pid}`);
  writeFileSync(pointer, JSON.stringify({ format: FORMAT, bundle: hash, inputs, digest: inputsDigest(inputs) }));
  renameSync(pointer, pointerFile);
  removeOldBundles();
  return join(target, `${entry}.mjs`);
}

/**
 * Bundles no entry points to any more go once nothing can still be starting from them (an
 * hour is ample); the ones the pointers name stay however old they are.
 */
function removeOldBundles() {
  const kept = new Set();
  for (const name of ENTRIES) {
    try {
      kept.add(JSON.parse(readFileSync(join(cacheDir, `${name}.json`), "utf8")).bundle);
    } catch {
      // no pointer for this entry
    }
  }
  for (const name of readdirSync(cacheDir)) {
    if (kept.has(name) || !/^(?:[0-9a-f]{16}|build-.*)$/.test(name)) continue;
    const path = join(cacheDir, name);
    try {
      if (Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
    } catch {
      // Gone meanwhile: another process renamed or removed it (builds run in parallel in tests).
    }
  }
}

await import(pathToFileURL(currentBundle() ?? bundle()).href);
