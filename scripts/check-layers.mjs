#!/usr/bin/env node
/**
 * The layer rule of docs/architecture.md: a module imports only from its own layer or the
 * layers below it. Prints every import that runs upward and exits 1 when there is one;
 * `node scripts/check-layers.mjs --list` prints each file's layer as well.
 *
 * Layers are given by folder (the first match wins, most specific first). A file outside
 * every folder listed here is an error too: a new folder must be placed on purpose.
 *
 * Also reported, since each hides an order the layers cannot show: a circle of imports
 * (type-only imports included: they still tie the modules' shapes), an import for its side
 * effects alone (`import "./x"`; style sheets excepted), and `require` (an import the
 * checker cannot follow). And the import convention of docs/code-style.md ("Imports"): an
 * import that leaves the importing file's folder is written `@/<path>`, one inside it
 * (the folder or below) `./<path>`; `node scripts/fix-imports.mjs` rewrites them so.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Top to bottom. Each entry: the layer's name and the path prefixes it holds. */
export const LAYERS = [
  ["entry", ["app/", "components/", "proxy.ts", "instrumentation.ts", "lib/server/"]],
  ["surfaces", ["lib/web/", "lib/routes/", "lib/cli/"]],
  ["http", ["lib/http/", "lib/delivery/"]],
  // The views of records that features own: they read the features' types, so they sit above
  // them; the surfaces alone use them. The other presenters are below the features, which
  // use those (a webhook's payload embeds the post object).
  ["replies", ["lib/replies/"]],
  [
    "features",
    [
      "lib/accounts/",
      "lib/admin/",
      "lib/analytics/",
      "lib/apps/",
      "lib/auth/",
      "lib/backup/",
      "lib/convert/",
      "lib/embeds/",
      "lib/gifs/",
      "lib/imports/",
      "lib/jobs/",
      "lib/links/",
      "lib/recovery/",
      "lib/reports/",
      "lib/social/",
      "lib/teams/",
      "lib/uploads/",
      "lib/webhooks/",
    ],
  ],
  ["presenters", ["lib/presenters/"]],
  [
    "domain",
    ["lib/audit/", "lib/domains/", "lib/folders/", "lib/posts/", "lib/settings/", "lib/tags/", "lib/users/", "lib/sessions/", "lib/usage/"],
  ],
  [
    "services",
    [
      "lib/cache/",
      "lib/db/",
      "lib/faults/",
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

export const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/**
 * The specifier an import of `spec` from `file` (both from the repository root) is written
 * as: `./<path>` when the target is in the file's folder or below it, `@/<path>` otherwise
 * (and always in the files at the root); null for a package or a path outside the tree.
 */
export function conventionalSpecifier(file, spec) {
  if (!spec.startsWith("@/") && !spec.startsWith(".")) return null;
  const dir = posix.dirname(file);
  const to = spec.startsWith("@/") ? posix.normalize(spec.slice(2)) : posix.normalize(posix.join(dir, spec));
  if (to.startsWith("../") || to === "..") return null;
  if (dir !== "." && to.startsWith(`${dir}/`)) return `./${to.slice(dir.length + 1)}`;
  return `@/${to}`;
}

/** The repository-relative file an import names, or null for a package. */
function target(tree, fromFile, spec) {
  let base;
  if (spec.startsWith("@/")) base = spec.slice(2);
  else if (spec.startsWith(".")) base = relative(tree, resolve(tree, dirname(fromFile), spec));
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`, base.replace(/\.js$/, ".ts")]) {
    try {
      if (statSync(join(tree, candidate)).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return base;
}

/** A bare import, run for its side effects: `import "./x";`. */
export const SIDE_EFFECT_IMPORT = /(?:^|\n)\s*import\s*["']([^"']+)["']/g;
/** Style sheets are imported for their effect by design (app/layout.tsx). */
const STYLE = /\.(css|scss)$/;
/** `require(...)` outside comments (a line comment or a block comment's `*` line). */
const REQUIRE = /^(?!\s*(?:\/\/|\*)).*?\brequire\s*\(/m;

/** The source files the rule covers, under `base`. */
export function sourceFiles(base = root) {
  const files = ["app", "components", "lib"].flatMap((dir) => {
    try {
      return walk(join(base, dir));
    } catch {
      return [];
    }
  });
  for (const name of ["proxy.ts", "instrumentation.ts"]) {
    try {
      if (statSync(join(base, name)).isFile()) files.push(join(base, name));
    } catch {
      // not in this tree
    }
  }
  return files;
}

/** Every set of files that import each other round (Tarjan's strongly connected components). */
function circles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let next = 0;
  const visit = (file) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const to of graph.get(file) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file), low.get(to)));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file), index.get(to)));
    }
    if (low.get(file) !== index.get(file)) return;
    const members = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      members.push(member);
    } while (member !== file);
    if (members.length > 1 || graph.get(file)?.has(file)) found.push(members.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return found;
}

/** The layer rule, circles, side-effect imports and `require` over the tree at `base` (the project by default). */
export function upwardImports(base = root) {
  const problems = [];
  const placed = [];
  const graph = new Map();
  for (const path of sourceFiles(base)) {
    const file = relative(base, path);
    if (file.startsWith("lib/db/generated/")) continue;
    const own = layerOf(file);
    if (!own) {
      problems.push(`${file}: in no layer (add its folder to scripts/check-layers.mjs and docs/architecture.md)`);
      continue;
    }
    placed.push(`${own.name.padEnd(9)} ${file}`);
    const text = readFileSync(path, "utf8");
    const imports = new Set();
    graph.set(file, imports);
    const unconventional = new Set();
    for (const match of [...text.matchAll(IMPORT), ...text.matchAll(SIDE_EFFECT_IMPORT)]) {
      const spec = match[1] ?? match[2];
      const want = conventionalSpecifier(file, spec);
      if (want && want !== spec) unconventional.add(`"${spec}" (write "${want}")`);
    }
    if (unconventional.size) {
      problems.push(`${file} imports ${[...unconventional].join(", ")}: across folders @/, inside one ./ (node scripts/fix-imports.mjs)`);
    }
    for (const match of text.matchAll(IMPORT)) {
      const spec = match[1] ?? match[2];
      const to = target(base, file, spec);
      if (!to) continue;
      imports.add(to);
      const theirs = layerOf(to);
      if (theirs && theirs.rank < own.rank) problems.push(`${file} (${own.name}) imports ${to} (${theirs.name})`);
    }
    for (const match of text.matchAll(SIDE_EFFECT_IMPORT)) {
      if (!STYLE.test(match[1])) problems.push(`${file} imports ${match[1]} for its side effects (import what it exports and call it)`);
    }
    if (REQUIRE.test(text)) problems.push(`${file} uses require (use import)`);
  }
  for (const circle of circles(graph)) problems.push(`circle of imports among ${circle.join(", ")}`);
  return { problems, placed };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { problems, placed } = upwardImports();
  if (process.argv.includes("--list")) console.log(placed.sort().join("\n"));
  if (problems.length) {
    console.error(`${problems.length} layer problem(s) (docs/architecture.md):\n${problems.join("\n")}`);
    process.exit(1);
  }
  console.log(`layers: ${placed.length} files, no import runs upward, no circle, no side-effect import, no require, one import convention`);
}
