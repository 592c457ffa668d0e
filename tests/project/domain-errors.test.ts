/**
 * Domain errors carry no HTTP status (issue 43 §3; docs/architecture.md, "Domain and
 * features know nothing of HTTP"): below the http layer a DomainError names its type and, when
 * the reply's status is not the type's, a condition (lib/errors.ts, CONDITION_STATUS); the
 * status table decides the status.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { CONDITION_STATUS, DomainError, ERROR_STATUS } from "@/lib/errors";
import { layerOf } from "../../scripts/check-layers.mjs";

const root = join(import.meta.dirname, "../..");
type Layer = { name: string; rank: number } | null;
const layer = (file: string): Layer => (layerOf as (f: string) => Layer)(file);
const HTTP_RANK = layer("lib/http/x.ts")?.rank ?? 0;

function sources(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== "generated") sources(path, out);
    } else if (/\.tsx?$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** `file:line` of every `new DomainError(type, message, <status>, ...)` in `text`. */
function statusesSet(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isNewExpression(node) && node.expression.getText(source) === "DomainError") {
      const status = node.arguments?.[2];
      if (status && status.getText(source) !== "undefined") {
        found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("domain errors", () => {
  it("below the http layer, no DomainError is given a status", () => {
    const below = sources("lib").filter((file) => (layer(file)?.rank ?? -1) > HTTP_RANK && file !== "lib/errors.ts");
    expect(below.length).toBeGreaterThan(100);
    expect(below.flatMap((file) => statusesSet(file, readFileSync(join(root, file), "utf8")))).toEqual([]);
  });

  it("would find one that is", () => {
    expect(statusesSet("lib/x.ts", 'throw new DomainError("not_found", "gone", 410);')).toEqual(["lib/x.ts:1"]);
    expect(statusesSet("lib/x.ts", 'throw new DomainError("forbidden", "no", undefined, { a: 1 });')).toEqual([]);
  });

  it("takes the status from the condition, else from the type; the reply's type stays the type", () => {
    const gone = DomainError.in("gone", "not_found", "This upload has expired.");
    expect([gone.type, gone.httpStatus]).toEqual(["not_found", CONDITION_STATUS.gone]);
    expect(DomainError.in("conflict", "invalid_request", "moved", { offset: 5 }).context).toEqual({ offset: 5 });
    expect(new DomainError("not_found", "No such upload.").httpStatus).toBe(ERROR_STATUS.not_found);
    expect([CONDITION_STATUS.gone, CONDITION_STATUS.conflict, CONDITION_STATUS.locked]).toEqual([410, 409, 423]);
  });
});
