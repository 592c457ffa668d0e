#!/usr/bin/env node
/**
 * The layer rule of docs/architecture.md: a module imports only from its own layer or the
 * layers below it. Prints every import that runs upward and exits 1 when there is one;
 * `node scripts/check-layers.mjs --list` prints each file's layer as well.
 *
 * Layers are given by folder (the first match wins, most specific first). A file outside
 * every folder listed here is an error too: a new folder must be placed on purpose.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Top to bottom. Each entry: the layer's name and the path prefixes it holds. */
export const LAYERS = [
  ["entry", ["app/", "components/", "proxy.ts", "lib/server/"]],
  ["surfaces", ["lib/web/", "lib/routes/", "lib/cli/"]],
  ["http", ["lib/http/", "lib/delivery/"]],
  [
    "features",
    [
      "lib/admin/",
      "lib/analytics/",
      "lib/apps/",
      "lib/auth/",
      "lib/backup/",
      "lib/convert/",
      "lib/gifs/",
      "lib/jobs/",
      "lib/recovery/",
      "lib/reports/",
      "lib/social/",
      "lib/teams/",
      "lib/uploads/",
      "lib/webhooks/",
      "lib/tus/",
    ],
  ],
  ["presenters", ["lib/presenters/"]],
  ["domain", ["lib/posts/", "lib/users/", "lib/sessions/", "lib/usage/"]],
  [
    "services",
    [
      "lib/cache/",
      "lib/db/",
      "lib/storage/",
      "lib/media/",
      "lib/ratelimit/",
      "lib/metrics/",
      "lib/crypto/",
      "lib/files/",
      "lib/renditions/",
      "lib/text/",
    ],
  ],
  ["config", ["lib/config/"]],
  ["base", ["lib/errors.ts", "lib/plans.ts", "lib/prisma-support.ts", "lib/moderation/", "lib/types/"]],
];

const SOURCE = /\.(ts|tsx|mts|mjs)$/;
const SKIP = new Set(["node_modules", ".next", "generated", "data"]);

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name) || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (SOURCE.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

export function layerOf(file) {
  for (let rank = 0; rank < LAYERS.length; rank++) {
    const [name, prefixes] = LAYERS[rank];
    if (prefixes.some((prefix) => file === prefix || file.startsWith(prefix))) return { name, rank };
  }
  return null;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** The repository-relative file an import names, or null for a package. */
function target(fromFile, spec) {
  let base;
  if (spec.startsWith("@/")) base = spec.slice(2);
  else if (spec.startsWith(".")) base = relative(root, resolve(root, dirname(fromFile), spec));
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`, base.replace(/\.js$/, ".ts")]) {
    try {
      if (statSync(join(root, candidate)).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return base;
}

export function upwardImports() {
  const files = ["app", "components", "lib"].flatMap((dir) => walk(join(root, dir))).concat([join(root, "proxy.ts")]);
  const problems = [];
  const placed = [];
  for (const path of files) {
    const file = relative(root, path);
    if (file.startsWith("lib/db/generated/")) continue;
    const own = layerOf(file);
    if (!own) {
      problems.push(`${file}: in no layer (add its folder to scripts/check-layers.mjs and docs/architecture.md)`);
      continue;
    }
    placed.push(`${own.name.padEnd(9)} ${file}`);
    const text = readFileSync(path, "utf8");
    for (const match of text.matchAll(IMPORT)) {
      const spec = match[1] ?? match[2];
      const to = target(file, spec);
      if (!to) continue;
      const theirs = layerOf(to);
      if (theirs && theirs.rank < own.rank) problems.push(`${file} (${own.name}) imports ${to} (${theirs.name})`);
    }
  }
  return { problems, placed };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { problems, placed } = upwardImports();
  if (process.argv.includes("--list")) console.log(placed.sort().join("\n"));
  if (problems.length) {
    console.error(`${problems.length} import(s) run upward (docs/architecture.md):\n${problems.join("\n")}`);
    process.exit(1);
  }
  console.log(`layers: ${placed.length} files, no import runs upward`);
}
