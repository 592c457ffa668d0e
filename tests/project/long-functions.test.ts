/**
 * scripts/long-functions.mjs, the report behind the ~60-line guideline of docs/code-style.md:
 * it measures every kind of function, names the anonymous ones by what holds them, and
 * leaves generated code out.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { longFunctions, longFunctionsIn, overLimit, sourceFiles } from "../../scripts/long-functions.mjs";

type Found = { file: string; line: number; lines: number; name: string; kind: string };
const over = (file: string, text: string, max: number): Found[] =>
  (longFunctionsIn as (f: string, t: string, m: number) => Found[])(file, text, max);

/** A body of `n` lines in all (the opening and closing lines included). */
const body = (n: number): string => `{\n${"  void 0;\n".repeat(n - 2)}}`;

describe("long-functions", () => {
  it("measures declarations, arrows, methods, components and hooks from first to last line", () => {
    const text = [
      `function plain() ${body(5)}`,
      `const arrow = () => ${body(5)};`,
      `class K { method() ${body(5)} }`,
      `export function Panel() ${body(5)}`,
      `function useThing() ${body(5)}`,
      `function short() ${body(4)}`,
    ].join("\n");
    const found = over("components/x.tsx", text, 4);
    expect(found.map((f) => [f.name, f.kind, f.lines])).toEqual([
      ["plain", "function", 5],
      ["arrow", "function", 5],
      ["method", "function", 5],
      ["Panel", "component", 5],
      ["useThing", "hook", 5],
    ]);
    expect(found[1].line).toBe(6);
  });

  it("names a callback by the call it is passed to", () => {
    const [found] = over("lib/x.ts", `items.map((item) => ${body(3)});`, 2);
    expect(found.name).toBe("items.map(…) callback");
  });

  it("holds the tree to the team's limit (npm run lint): none over the ceiling, no more over the guideline than the budget", () => {
    const lint = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8")).scripts.lint as string;
    const [, ceiling, budget] = /long-functions\.mjs --ceiling (\d+) --budget (\d+)/.exec(lint) ?? [];
    expect(ceiling && budget).toBeTruthy();
    const limit = { ceiling: Number(ceiling), budget: Number(budget) };
    expect((overLimit as (f: Found[], l: typeof limit) => string[])((longFunctions as (max: number) => Found[])(60), limit)).toEqual([]);
  });

  it("reports a function over the ceiling and a count over the budget", () => {
    const found = [
      { file: "lib/a.ts", line: 3, lines: 120, name: "big", kind: "function" },
      { file: "lib/b.ts", line: 9, lines: 70, name: "long", kind: "function" },
    ];
    const check = overLimit as (f: Found[], l: { ceiling?: number; budget?: number }) => string[];
    expect(check(found, { ceiling: 110, budget: 2 })).toEqual(["lib/a.ts:3 big has 120 lines (the ceiling is 110)"]);
    expect(check(found, { ceiling: 200, budget: 1 })).toHaveLength(1);
    expect(check(found, { ceiling: 200, budget: 2 })).toEqual([]);
  });

  it("lists the tree's functions over the limit, longest first", () => {
    const found = (longFunctions as (max: number) => Found[])(60);
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((f) => f.lines > 60)).toBe(true);
    expect(found.map((f) => f.lines)).toEqual([...found.map((f) => f.lines)].sort((a, b) => b - a));
    expect(found.every((f) => /^(app|components|lib|scripts)\//.test(f.file))).toBe(true);
  });

  it("reads the sources, not the generated Prisma clients", () => {
    const files = (sourceFiles as () => string[])();
    expect(files).toContain("lib/media/ffmpeg.ts");
    expect(files).toContain("components/dashboard/webhooks-panel.tsx");
    expect(files.some((f) => f.startsWith("lib/db/generated/"))).toBe(false);
  });
});
