#!/usr/bin/env node
/**
 * Lists the functions over the length guideline of docs/code-style.md (about 60 lines):
 * function declarations and expressions, arrow functions, methods, React components and
 * hooks, in app/, components/, lib/ and scripts/, longest first. A report to read, not a
 * rule: it always exits 0, and CI does not run it (a long function is sometimes the
 * clearest one; the guideline says "split where it reads better").
 *
 *   node scripts/long-functions.mjs            # over 60 lines
 *   node scripts/long-functions.mjs --max 100  # over 100 lines
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

function parseMax(argv) {
  const i = argv.indexOf("--max");
  const raw = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith("--max="))?.slice("--max=".length);
  if (raw === undefined) return DEFAULT_MAX;
  const max = Number(raw);
  if (!Number.isInteger(max) || max < 1) {
    console.error(`--max takes a whole number of lines, not ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return max;
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
  const max = parseMax(process.argv.slice(2));
  const found = longFunctions(max);
  for (const f of found) {
    console.log(`${String(f.lines).padStart(5)}  ${`${f.file}:${f.line}`.padEnd(56)} ${f.kind.padEnd(9)} ${f.name}`);
  }
  console.log(`${found.length} function${found.length === 1 ? "" : "s"} over ${max} lines in ${ROOTS.join("/, ")}/`);
}
