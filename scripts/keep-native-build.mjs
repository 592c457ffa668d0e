#!/usr/bin/env node
/**
 * Keeps better-sqlite3's compiled addon where its installer looks first, so the next
 * `npm install` of a clean clone on this machine unpacks it instead of compiling SQLite again.
 * `.ci/run` calls it after `npm install`.
 *
 * Why: better-sqlite3 installs with `prebuild-install || node-gyp rebuild`. Its prebuilt
 * binaries are downloaded from a host this workplace cannot reach, so every clean install
 * compiled sqlite3.c at -O3: most of the install's CPU time (docs/development.md, "Test
 * time"). prebuild-install checks npm's cache folder (`_prebuilds/`, named after the download
 * URL) before it downloads; this puts the addon built here there, as the download would have.
 * Nothing happens when the cached file exists or there is no built addon. Only this machine's
 * own build is kept: same package version, Node ABI, platform and architecture.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const packageDir = dirname(require.resolve("better-sqlite3/package.json"));
const addon = join(packageDir, "build", "Release", "better_sqlite3.node");
if (!existsSync(addon)) process.exit(0);

// prebuild-install's own naming, so the file is the one it looks for.
const util = require("prebuild-install/util");
const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
const url = util.getDownloadUrl({
  pkg,
  runtime: "node",
  abi: process.versions.modules,
  platform: process.platform,
  arch: process.arch,
  libc: "",
  "tag-prefix": "v",
});
const cached = util.cachedPrebuild(url);
if (existsSync(cached)) process.exit(0);

mkdirSync(dirname(cached), { recursive: true });
const partial = `${cached}.${process.pid}.tmp`;
execFileSync("tar", ["-czf", partial, "-C", packageDir, "build/Release/better_sqlite3.node"]);
renameSync(partial, cached);
console.log(`kept better-sqlite3's build for the next install: ${cached}`);
