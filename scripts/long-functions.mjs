#!/usr/bin/env node
/**
 * Lists the functions over the length guideline of docs/code-style.md (about 60 lines):
 * function declarations and expressions, arrow functions, methods, React components and
 * hooks, in app/, components/, lib/ and scripts/, longest first. Under 60 lines is a
 * guideline (a long function is sometimes the clearest one); what CI holds is the team's
 * limit (docs/code-style.md, "Function length"): no function over `--ceiling` lines, and no
 * more than `--budget` functions over `--max`. `npm run lint` runs it with the limit.
 *
 *   node scripts/long-functions.mjs            # over 60 lines, a report (exits 0)
 *   node scripts/long-functions.mjs --max 100  # over 100 lines
 *   node scripts/long-functions.mjs --ceiling 110 --budget 37  # exits 1 past either
 *
 * A function's lines run from its first token to its closing brace, nested functions
 * included (they are listed on their own too). Uses the TypeScript compiler's parser only.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const ROOTS = ["app", "components", "lib", "scripts"];
/** Generated code: nobody reads or splits it. */
const SKIPPED = new Set(["lib/db/generated", "sdk/src/generated"]);
const EXTENSIONS = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const DEFAULT_MAX = 60;

/** The whole number given to `--name` (or `--name=`), or `fallback`. */
function parseCount(argv, name, fallback) {
  const i = argv.indexOf(`--${name}`);
  const raw = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    console.error(`--${name} takes a whole number, not ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return value;
}

/**
 * What breaks the team's limit, given the functions over the guideline: each one longer than
 * `ceiling`, and the count when more than `budget` are over the guideline. Empty: within it.
 */
export function overLimit(found, { ceiling, budget }) {
  const problems = [];
  if (ceiling !== undefined) {
    for (const f of found)
      if (f.lines > ceiling) problems.push(`${f.file}:${f.line} ${f.name} has ${f.lines} lines (the ceiling is ${ceiling})`);
  }
  if (budget !== undefined && found.length > budget) {
    problems.push(
      `${found.length} functions are over the guideline (the budget is ${budget}: split one, or one that is there, before adding one)`,
    );
  }
  return problems;
}

function listSources(dir, out) {
  let entries;
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return out;
  }
  for (const entry of entries) {
    const rel = `${dir}/${entry.name}`;
    if (SKIPPED.has(rel) || entry.name === "node_modules") continue;
    if (entry.isDirectory()) listSources(rel, out);
    else if (entry.isFile() && EXTENSIONS.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(rel);
  }
  return out;
}

const isFunction = (node) =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node);

/** The name a reader would search for: the function's own, or what it is assigned or passed to. */
function nameOf(node, source) {
  if (ts.isConstructorDeclaration(node)) return "constructor";
  if (node.name) return node.name.getText(source);
  let parent = node.parent;
  // `memo(function …)`, `forwardRef((…) => …)`, `x as T`: look through the wrapper.
  while (parent && (ts.isParenthesizedExpression(parent) || ts.isAsExpression(parent) || ts.isSatisfiesExpression(parent))) {
    parent = parent.parent;
  }
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) {
    return parent.name.getText(source);
  }
  if (parent && ts.isCallExpression(parent)) {
    const callee = parent.expression.getText(source);
    const holder = parent.parent && ts.isVariableDeclaration(parent.parent) ? `${parent.parent.name.getText(source)} = ` : "";
    return `${holder}${callee.length > 40 ? `${callee.slice(0, 40)}…` : callee}(…) callback`;
  }
  if (parent && ts.isExportAssignment(parent)) return "export default";
  return "(anonymous)";
}

function kindOf(name, file) {
  if (/^use[A-Z]/.test(name)) return "hook";
  if (/\.(tsx|jsx)$/.test(file) && /^[A-Z]/.test(name)) return "component";
  return "function";
}

/** The functions of one file over `max` lines: { file, line, lines, name, kind }. */
export function longFunctionsIn(file, text, max) {
  const kind = /\.(tsx|jsx)$/.test(file) ? ts.ScriptKind.TSX : /\.(js|mjs|cjs)$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const found = [];
  const visit = (node) => {
    if (isFunction(node) && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) {
        const name = nameOf(node, source);
        found.push({ file, line: first + 1, lines, name, kind: kindOf(name, file) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The files read: sources under app/, components/, lib/ and scripts/, generated code left out. */
export function sourceFiles() {
  return ROOTS.flatMap((dir) => listSources(dir, []));
}

/** Every function over `max` lines in app/, components/, lib/ and scripts/, longest first. */
export function longFunctions(max = DEFAULT_MAX) {
  return sourceFiles()
    .flatMap((file) => longFunctionsIn(file, readFileSync(join(root, file), "utf8"), max))
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const max = parseCount(argv, "max", DEFAULT_MAX);
  const limit = { ceiling: parseCount(argv, "ceiling", undefined), budget: parseCount(argv, "budget", undefined) };
  const found = longFunctions(max);
  // Held to a limit (CI), only what breaks it is printed; else the whole report.
  const checking = limit.ceiling !== undefined || limit.budget !== undefined;
  if (!checking) {
    for (const f of found) {
      console.log(`${String(f.lines).padStart(5)}  ${`${f.file}:${f.line}`.padEnd(56)} ${f.kind.padEnd(9)} ${f.name}`);
    }
  }
  console.log(`${found.length} function${found.length === 1 ? "" : "s"} over ${max} lines in ${ROOTS.join("/, ")}/`);
  const problems = overLimit(found, limit);
  if (problems.length) {
    console.error(`function length over the limit (docs/code-style.md):\n${problems.join("\n")}`);
    process.exit(1);
  }
}
