/**
 * The route types hold (issue 21 §3, docs/http-core.md): tests/project/fixtures/route-types.ts
 * is compiled with the project's compiler options; each mistake it marks with
 * `@ts-expect-error` must be an error, and nothing else may be. Loosening defineRoute
 * (a nullable principal on a keyed route, `object` replies, a full Request) leaves an
 * expectation unused, which is itself an error.
 */
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "../..");

describe("route types", () => {
  it("the fixture compiles exactly with its expected errors", () => {
    const config = ts.readConfigFile(path.join(root, "tsconfig.json"), ts.sys.readFile);
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
    const options = { ...parsed.options, incremental: false, noEmit: true };
    const program = ts.createProgram([path.join(root, "tests/project/fixtures/route-types.ts")], options);
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
      return `${d.file ? path.relative(root, d.file.fileName) : "?"}:${where ? where.line + 1 : "?"} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    });
    expect(diagnostics).toEqual([]);
  }, 120_000);
});
