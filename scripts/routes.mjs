#!/usr/bin/env node
/**
 * The route index (docs/architecture.md, "Route index"): every entry point of the service and
 * the files that answer it, read from the source text with TypeScript's parser (nothing of
 * the service is loaded, so it needs no database or environment).
 *
 *   npm run -s routes            # print the index (Markdown)
 *   npm run -s routes -- --write # put it in docs/architecture.md, between its markers
 *
 * Three parts: the route table (lib/routes/table: id, method, path, surfaces, the handler,
 * the domain verbs it calls and the presenter that shapes the reply), the route handlers
 * outside it (`app/**\/route.ts`, `app/manifest.ts`, and the server's own /cdn lane), and
 * the pages (`app/**\/page.tsx`) with the files each loads through.
 * tests/project/route-index.test.ts fails when the doc's copy is not what this prints.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { layerOf } from "./check-layers.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DOC = "docs/architecture.md";
export const BEGIN = "<!-- route-index:begin (npm run -s routes -- --write) -->";
export const END = "<!-- route-index:end -->";

const parsed = new Map();
/** The parsed source file at repository path `file`. */
function parse(file) {
  let source = parsed.get(file);
  if (!source) {
    const text = readFileSync(join(root, file), "utf8");
    source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    parsed.set(file, source);
  }
  return source;
}

/** The repository file an import specifier names from `file`, or null for a package. */
function resolveImport(file, spec) {
  let base;
  if (spec.startsWith("@/")) base = spec.slice(2);
  else if (spec.startsWith(".")) base = relative(root, resolve(root, dirname(file), spec));
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) {
    if (existsSync(join(root, candidate)) && candidate.match(/\.(ts|tsx|mjs)$/)) return candidate;
  }
  return base;
}

/** name → repository file, for every named import of `file`. */
function importsOf(file) {
  const names = new Map();
  for (const statement of parse(file).statements) {
    if (!ts.isImportDeclaration(statement) || !statement.importClause) continue;
    const from = resolveImport(file, statement.moduleSpecifier.text);
    if (!from) continue;
    const clause = statement.importClause;
    if (clause.name) names.set(clause.name.text, from);
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) names.set(element.name.text, from);
  }
  return names;
}

/** Every repository file `file` imports (packages left out). */
function importedFiles(file) {
  const files = new Set();
  for (const statement of parse(file).statements) {
    if ((ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier) {
      const from = resolveImport(file, statement.moduleSpecifier.text);
      if (from) files.add(from);
    }
  }
  return [...files];
}

/** The file's top-level functions (declarations and `const x = (…) => …`), by name. */
function topLevelFunctions(file) {
  const found = new Map();
  for (const statement of parse(file).statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name) found.set(statement.name.text, statement);
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer;
        if (
          ts.isIdentifier(declaration.name) &&
          init &&
          (ts.isArrowFunction(init) || ts.isFunctionExpression(init) || ts.isCallExpression(init))
        ) {
          found.set(declaration.name.text, init);
        }
      }
    }
  }
  return found;
}

/** The imported names a function calls, following the file's own helpers it calls: [{name, file}]. */
function callsOf(file, node) {
  const imports = importsOf(file);
  const locals = topLevelFunctions(file);
  const seen = new Set();
  const found = new Map();
  const visit = (n) => {
    if (ts.isCallExpression(n) || ts.isNewExpression(n)) {
      const callee = n.expression;
      if (callee && ts.isIdentifier(callee)) {
        const name = callee.text;
        if (imports.has(name)) found.set(name, imports.get(name));
        else if (locals.has(name) && !seen.has(name)) {
          seen.add(name);
          visit(locals.get(name));
        }
      }
    }
    // A function handed over as a value (`pageReply(..., userRef)`) is called too.
    // (Constants, in capitals, are not.)
    if (
      ts.isIdentifier(n) &&
      n.parent &&
      ts.isCallExpression(n.parent) &&
      n.parent.arguments.includes(n) &&
      imports.has(n.text) &&
      !/^[A-Z0-9_]+$/.test(n.text)
    ) {
      found.set(n.text, imports.get(n.text));
    }
    ts.forEachChild(n, visit);
  };
  visit(node);
  return [...found].map(([name, from]) => ({ name, file: from }));
}

const isPresenter = (file) => file.startsWith("lib/presenters/") || file.startsWith("lib/replies/");
const isVerb = (file) => !isPresenter(file) && ["features", "domain"].includes(layerOf(file)?.name);
const code = (s) => `\`${s}\``;
/** `a`, `b` (lib/x/y.ts); `c` (lib/x/z.ts): names grouped by their file. */
function byFile(items) {
  const files = new Map();
  for (const { name, file } of items) files.set(file, [...(files.get(file) ?? []), name]);
  return [...files].map(([file, names]) => `${names.map(code).join(", ")} (${code(file)})`).join("; ") || "–";
}

/** The value of a property of an object literal (a spread `...shared` of a const of the same file included), or undefined. */
function property(object, name) {
  let found;
  for (const p of object.properties) {
    if (ts.isPropertyAssignment(p) && p.name.getText() === name) found = p.initializer;
    if (ts.isSpreadAssignment(p) && ts.isIdentifier(p.expression)) {
      const spread = constObject(p.getSourceFile(), p.expression.text);
      const inner = spread && property(spread, name);
      if (inner) found = inner;
    }
  }
  return found;
}

/** The object literal a top-level const of `source` holds (`as const` looked through). */
function constObject(source, name) {
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const d of statement.declarationList.declarations) {
      let init = d.name.getText() === name ? d.initializer : undefined;
      while (init && (ts.isAsExpression(init) || ts.isSatisfiesExpression(init))) init = init.expression;
      if (init && ts.isObjectLiteralExpression(init)) return init;
    }
  }
  return undefined;
}

/** `["api", "relay"] as const` behind an identifier of the table's shared constants. */
function surfacesOf(file, node) {
  if (!node) return [];
  let target = node;
  if (ts.isIdentifier(node)) {
    const from = importsOf(file).get(node.text);
    const holder = from ? parse(from) : parse(file);
    for (const statement of holder.statements) {
      if (!ts.isVariableStatement(statement)) continue;
      for (const d of statement.declarationList.declarations) if (d.name.getText() === node.text) target = d.initializer;
    }
  }
  while (target && (ts.isAsExpression(target) || ts.isSatisfiesExpression(target))) target = target.expression;
  return target && ts.isArrayLiteralExpression(target) ? target.elements.map((e) => e.text) : [];
}

/** The `defineRoute({...})` calls of a file, in order. */
function declarations(file) {
  const found = [];
  const visit = (n) => {
    if (
      ts.isCallExpression(n) &&
      n.expression.getText() === "defineRoute" &&
      n.arguments[0] &&
      ts.isObjectLiteralExpression(n.arguments[0])
    ) {
      found.push(n.arguments[0]);
    }
    ts.forEachChild(n, visit);
  };
  visit(parse(file));
  return found;
}

/** One table route: where each of its parts is. */
function describeRoute(tableFile, object) {
  const text = (name) => property(object, name)?.text;
  const imports = importsOf(tableFile);
  const handlerNode = property(object, "handler");
  let handler;
  let handlerFile;
  let body;
  if (handlerNode && ts.isIdentifier(handlerNode)) {
    handler = handlerNode.text;
    handlerFile = imports.get(handler) ?? tableFile;
    body = topLevelFunctions(handlerFile).get(handler) ?? findExportedFunction(handlerFile, handler);
  } else {
    handler = "(inline)";
    handlerFile = tableFile;
    body = handlerNode;
  }
  const calls = body ? callsOf(handlerFile, body) : [];
  const response = property(object, "response");
  const reply =
    response && ts.isIdentifier(response) && imports.has(response.text) ? [{ name: response.text, file: imports.get(response.text) }] : [];
  const views = calls.filter((c) => isPresenter(c.file));
  return {
    id: text("id"),
    method: text("method"),
    path: text("path"),
    surfaces: surfacesOf(tableFile, property(object, "surfaces")),
    table: tableFile,
    handler,
    handlerFile,
    verbs: calls.filter((c) => isVerb(c.file)),
    presenter: [...reply, ...views.filter((v) => !reply.some((r) => r.name === v.name))],
  };
}

function findExportedFunction(file, name) {
  for (const statement of parse(file).statements) {
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const element of statement.exportClause.elements) {
        if (element.name.text === name) return topLevelFunctions(file).get((element.propertyName ?? element.name).text);
      }
    }
  }
  return undefined;
}

/** The table's areas in the order of lib/routes/table/index.ts, then the surfaces' own routes (lib/routes/index.ts). */
export function tableRoutes() {
  const index = "lib/routes/table/index.ts";
  const areas = importedFiles(index).filter((f) => f.startsWith("lib/routes/table/"));
  const files = [...areas, "lib/routes/index.ts"];
  return files.flatMap((file) => declarations(file).map((object) => describeRoute(file, object)));
}

/** `app/f/[code]/page.tsx` → `/f/{code}`; route groups `(main)` leave no segment. */
function urlOf(file) {
  const segments = dirname(file).split("/").slice(1);
  const parts = segments
    .filter((s) => !/^\(.*\)$/.test(s))
    .map((s) =>
      s
        .replace(/^\[\[\.\.\.(.+)\]\]$/, "{$1...}")
        .replace(/^\[\.\.\.(.+)\]$/, "{$1...}")
        .replace(/^\[(.+)\]$/, "{$1}"),
    );
  return `/${parts.join("/")}`;
}

function walk(dir, out = []) {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) walk(path, out);
    else out.push(path);
  }
  return out;
}

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
/** The HTTP methods a route handler file exports. */
function exportedMethods(file) {
  const names = new Set();
  for (const statement of parse(file).statements) {
    const exported = ts.getModifiers?.(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (exported && ts.isFunctionDeclaration(statement) && statement.name) names.add(statement.name.text);
    if (exported && ts.isVariableStatement(statement)) for (const d of statement.declarationList.declarations) names.add(d.name.getText());
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const element of statement.exportClause.elements) names.add(element.name.text);
    }
  }
  return METHODS.filter((m) => names.has(m));
}

/** The files an entry file reaches first: what it imports from lib/ and components/, and its own folder's files. */
function firstFiles(file) {
  return importedFiles(file).filter((f) => f.startsWith("lib/") || f.startsWith("components/") || (f.startsWith("app/") && f !== file));
}

/**
 * Entry points the custom server answers before Next (lib/server/fast-lane.ts), which no
 * file under app/ shows: [url, methods, files].
 */
const SERVER_LANES = [
  ["/cdn/...", "GET HEAD", ["lib/server/cdn-lane.ts", "lib/routes/cdn.ts", "lib/delivery/decide.ts"]],
  ["/api/..., /relay/...", "all", ["lib/server/fast-lane.ts", "lib/routes/index.ts", "lib/http/dispatch.ts"]],
];

/** Route handlers outside the table: app/**\/route.ts, app/manifest.ts, and the server's lanes. */
export function otherEntryPoints() {
  const files = walk("app")
    .filter((f) => f.endsWith("/route.ts") || f === "app/manifest.ts")
    .sort();
  const fromApp = files.map((file) => ({
    url: file === "app/manifest.ts" ? "/manifest.webmanifest" : urlOf(file),
    methods: file === "app/manifest.ts" ? "GET" : exportedMethods(file).join(" "),
    files: [file, ...firstFiles(file)],
  }));
  const lanes = SERVER_LANES.map(([url, methods, laneFiles]) => {
    for (const f of laneFiles) if (!existsSync(join(root, f))) throw new Error(`routes.mjs: ${f} is gone; update SERVER_LANES`);
    return { url, methods, files: laneFiles };
  });
  return [...lanes, ...fromApp];
}

/** The pages: app/**\/page.tsx, with the layouts above them (the root layout aside) and what they load through. */
export function pages() {
  const all = walk("app");
  return all
    .filter((f) => f.endsWith("/page.tsx"))
    .sort()
    .map((file) => {
      const layouts = [];
      for (let dir = dirname(file); dir !== "app" && dir !== "."; dir = dirname(dir)) {
        if (all.includes(`${dir}/layout.tsx`)) layouts.unshift(`${dir}/layout.tsx`);
      }
      const reached = firstFiles(file);
      return {
        url: urlOf(file),
        files: [file, ...layouts],
        loaders: reached.filter((f) => f.startsWith("lib/")),
        components: reached.filter((f) => !f.startsWith("lib/")),
      };
    });
}

const cell = (s) => s.replaceAll("|", "\\|");

/** The index as Markdown. */
export function routeIndex() {
  const lines = [];
  const routes = tableRoutes();
  lines.push(`### The route table (${routes.length} routes)`, "");
  lines.push("Paths are under `/api`, `/relay` or both (the surfaces column).", "");
  let area = null;
  for (const route of routes) {
    if (route.table !== area) {
      area = route.table;
      lines.push("", `${code(route.table)} → handlers in ${code(route.handlerFile)}`, "");
      lines.push("| id | method path | surfaces | handler | verb | presenter |", "|---|---|---|---|---|---|");
    }
    lines.push(
      `| ${code(route.id)} | ${cell(`${route.method} ${route.path}`)} | ${route.surfaces.join(" ")} | ${code(route.handler)} | ${cell(byFile(route.verbs))} | ${cell(byFile(route.presenter))} |`,
    );
  }
  lines.push("", "### Entry points outside the table", "");
  lines.push("| path | methods | files |", "|---|---|---|");
  for (const entry of otherEntryPoints()) lines.push(`| ${cell(entry.url)} | ${entry.methods} | ${entry.files.map(code).join(", ")} |`);
  lines.push("", "### Pages", "");
  lines.push("| path | files | loads through | components |", "|---|---|---|---|");
  for (const page of pages()) {
    lines.push(
      `| ${cell(page.url)} | ${page.files.map(code).join(", ")} | ${page.loaders.map(code).join(", ") || "–"} | ${page.components.map(code).join(", ") || "–"} |`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** The doc's copy: what lies between the markers. */
export function documentedIndex(text = readFileSync(join(root, DOC), "utf8")) {
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start < 0 || end < start) return null;
  return text.slice(start + BEGIN.length, end).replace(/^\n/, "");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const index = routeIndex();
  if (process.argv.includes("--write")) {
    const text = readFileSync(join(root, DOC), "utf8");
    const start = text.indexOf(BEGIN);
    const end = text.indexOf(END);
    if (start < 0 || end < start) {
      console.error(`${DOC} has no route-index markers`);
      process.exit(1);
    }
    writeFileSync(join(root, DOC), `${text.slice(0, start + BEGIN.length)}\n${index}${text.slice(end)}`);
    console.log(`${DOC}: route index written`);
  } else process.stdout.write(index);
}
