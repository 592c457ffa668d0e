#!/usr/bin/env node
/**
 * Rewrites imports to the one convention of docs/code-style.md ("Imports"): `@/<path>` for
 * an import that leaves the importing file's folder, `./<path>` for one inside it. The rule
 * and the imports it reads are scripts/check-layers.mjs's (`conventionalSpecifier`, `IMPORT`,
 * `SIDE_EFFECT_IMPORT`), which reports any import that breaks it, so what this fixes is
 * exactly what the check finds. Idempotent: a second run changes nothing. Rewritten files are
 * formatted with Biome (a specifier's length can move a line past or under the width).
 *
 *   node scripts/fix-imports.mjs          # rewrite, and list the files changed
 *   node scripts/fix-imports.mjs --check  # list them only; exits 1 when there is one
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { conventionalSpecifier, IMPORT, SIDE_EFFECT_IMPORT, sourceFiles } from "./check-layers.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** `text` with every import specifier written by the convention, for the file at repository path `file`. */
export function fixImports(file, text) {
  const rewrite = (match, ...groups) => {
    const spec = groups[0] ?? groups[1];
    const want = conventionalSpecifier(file, spec);
    if (!want || want === spec) return match;
    // The specifier is the last quoted string of the match (`from "x"`, `import("x")`, `import "x"`).
    const at = match.lastIndexOf(spec);
    return `${match.slice(0, at)}${want}${match.slice(at + spec.length)}`;
  };
  return text.replace(IMPORT, rewrite).replace(SIDE_EFFECT_IMPORT, rewrite);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes("--check");
  const changed = [];
  for (const path of sourceFiles(root)) {
    const file = relative(root, path);
    if (file.startsWith("lib/db/generated/")) continue;
    const text = readFileSync(path, "utf8");
    const fixed = fixImports(file, text);
    if (fixed === text) continue;
    changed.push(file);
    if (!check) writeFileSync(path, fixed);
  }
  if (changed.length && !check) {
    const biome = join(root, "node_modules", ".bin", "biome");
    const formatted = spawnSync(biome, ["format", "--write", ...changed], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
    if (formatted.status !== 0) console.error("biome format failed; run npm run format");
  }
  for (const file of changed) console.log(file);
  console.log(
    `${changed.length} file${changed.length === 1 ? "" : "s"} ${check ? "to rewrite" : "rewritten"} (docs/code-style.md, "Imports")`,
  );
  if (check && changed.length) process.exit(1);
}
