/**
 * The browser's reply types are the presenters' schemas, never a copy (issue 43 §4;
 * docs/code-style.md): every `api<T>(...)` call under components/ names a reply through
 * `Reply<typeof Schema>` (or a type made so, here or in components/dashboard/api.ts) with the
 * schema imported from the presenters. A hand-written `interface Webhook {...}` drifts from
 * what the server sends without the type check noticing.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const PRESENTERS = /^@\/lib\/(presenters|replies)\//;

/** The calls allowed another type, each for a reason. */
const EXCEPTIONS = new Map([
  // The presenter's WebAuthnOptions is a loose object ({challenge}); the browser library's own type is the precise one it takes.
  ["components/dashboard/sign-in-factors.tsx", /Parameters<typeof startRegistration>/],
]);

function sources(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) sources(path, out);
    else if (/\.tsx?$/.test(entry.name)) out.push(path);
  }
  return out;
}

const parse = (file: string) =>
  ts.createSourceFile(
    file,
    readFileSync(join(root, file), "utf8"),
    ts.ScriptTarget.Latest,
    true,
    file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );

/** The names a file imports, with the module each comes from. */
function imports(source: ts.SourceFile): Map<string, string> {
  const names = new Map<string, string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !statement.importClause?.namedBindings) continue;
    const bindings = statement.importClause.namedBindings;
    if (ts.isNamedImports(bindings))
      for (const e of bindings.elements) names.set(e.name.text, (statement.moduleSpecifier as ts.StringLiteral).text);
  }
  return names;
}

/** The file's type aliases by name. */
function aliases(source: ts.SourceFile): Map<string, ts.TypeNode> {
  const found = new Map<string, ts.TypeNode>();
  for (const statement of source.statements) if (ts.isTypeAliasDeclaration(statement)) found.set(statement.name.text, statement.type);
  return found;
}

/** Whether `node` is a presenter's schema type: `Reply<typeof S>`, `z.output<typeof S>`, or a name made so. */
function fromPresenter(file: string, source: ts.SourceFile, node: ts.TypeNode, seen = new Set<string>()): boolean {
  const imported = imports(source);
  if (ts.isTypeReferenceNode(node)) {
    const name = node.typeName.getText(source);
    if ((name === "Reply" || name === "z.output" || name === "z.infer") && node.typeArguments?.length === 1) {
      const argument = node.typeArguments[0];
      const queries = ts.isUnionTypeNode(argument) ? argument.types : [argument];
      return queries.every((q) => ts.isTypeQueryNode(q) && PRESENTERS.test(imported.get(q.exprName.getText(source)) ?? ""));
    }
    if (node.typeArguments?.length || seen.has(name)) return false;
    seen.add(name);
    const local = aliases(source).get(name);
    if (local) return fromPresenter(file, source, local, seen);
    if (imported.get(name) === "./api" && file.startsWith("components/dashboard/")) {
      const api = parse("components/dashboard/api.ts");
      const there = aliases(api).get(name);
      return there ? fromPresenter("components/dashboard/api.ts", api, there) : false;
    }
  }
  if (ts.isIndexedAccessTypeNode(node)) return fromPresenter(file, source, node.objectType, seen);
  return false;
}

/** `file:line T` for every `api<T>(...)` whose T is not a presenter's. */
function handWritten(file: string): string[] {
  const source = parse(file);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "api" && node.typeArguments?.length) {
      const argument = node.typeArguments[0];
      const text = argument.getText(source);
      if (!fromPresenter(file, source, argument) && !EXCEPTIONS.get(file)?.test(text)) {
        found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${text}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("dashboard reply types", () => {
  it("every api<T>() call under components/ takes T from a presenter's schema", () => {
    const files = sources("components");
    expect(files.length).toBeGreaterThan(20);
    expect(files.flatMap(handWritten)).toEqual([]);
  });

  it("would catch a reply type written by hand", () => {
    const source = ts.createSourceFile(
      "x.tsx",
      'import type { WebhookList } from "@/lib/replies/webhooks";\ninterface Hooks { webhooks: { id: string }[] }\ntype Good = Reply<typeof WebhookList>;\n',
      ts.ScriptTarget.Latest,
      true,
    );
    const [hand, good] = [ts.factory.createTypeReferenceNode("Hooks"), (source.statements[2] as ts.TypeAliasDeclaration).type];
    expect(fromPresenter("x.tsx", source, good)).toBe(true);
    expect(fromPresenter("x.tsx", source, hand)).toBe(false);
  });
});
