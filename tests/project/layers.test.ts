/**
 * The layer rule of docs/architecture.md: no module imports a layer above its own, and
 * every source file sits in a layer. `node scripts/check-layers.mjs` prints the same.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { conventionalSpecifier, LAYERS, layerOf, upwardImports } from "../../scripts/check-layers.mjs";
import { fixImports } from "../../scripts/fix-imports.mjs";

type Layer = { name: string; rank: number } | null;
const layer = (file: string): Layer => (layerOf as (f: string) => Layer)(file);
const check = upwardImports as (base?: string) => { problems: string[] };

/**
 * The layer table of docs/architecture.md: [layer, its folders and files], top to bottom,
 * read from the rows under its header (the backquoted paths of the second column).
 */
function documentedLayers(): [string, string[]][] {
  const doc = readFileSync(join(import.meta.dirname, "../../docs/architecture.md"), "utf8").split("\n");
  const header = doc.findIndex((line) => line.startsWith("| layer (top to bottom) |"));
  const rows: [string, string[]][] = [];
  for (const line of doc.slice(header + 2)) {
    if (!line.startsWith("|")) break;
    const [, name, paths] = line.split("|").map((cell) => cell.trim());
    rows.push([name, [...paths.matchAll(/`([^`]+)`/g)].map((m) => m[1]).sort()]);
  }
  return rows;
}

/** The checker's problems for a small tree of `files` (path → text). */
const scratch: string[] = [];
function problemsOf(files: Record<string, string>): string[] {
  const base = mkdtempSync(join(tmpdir(), "layers-"));
  scratch.push(base);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(base, dirname(path)), { recursive: true });
    writeFileSync(join(base, path), text);
  }
  return check(base).problems;
}
afterAll(() => {
  for (const base of scratch) rmSync(base, { recursive: true, force: true });
});

describe("layers", () => {
  it("no import runs upward, no circle, side-effect import or require, and every file has a layer", () => {
    expect(check().problems).toEqual([]);
  });

  it("keeps the job queue free of the features whose jobs it runs (they register from above)", () => {
    const queue = readdirSync(join(import.meta.dirname, "../../lib/jobs")).map((name) =>
      readFileSync(join(import.meta.dirname, "../../lib/jobs", name), "utf8"),
    );
    expect(queue.filter((text) => /from "(\.\.\/|@\/lib\/)webhooks\//.test(text))).toEqual([]);
  });

  it("reports an import that runs upward", () => {
    expect(problemsOf({ "lib/posts/a.ts": 'import { x } from "@/lib/routes/b";\n', "lib/routes/b.ts": "export const x = 1;\n" })).toEqual([
      "lib/posts/a.ts (domain) imports lib/routes/b.ts (surfaces)",
    ]);
  });

  it("reports a circle of imports, type-only ones included", () => {
    const problems = problemsOf({
      "lib/posts/a.ts": 'import { b } from "./b";\nexport const a = b;\n',
      "lib/posts/b.ts": 'import type { C } from "./c";\nexport const b: C = 1;\n',
      "lib/posts/c.ts": 'import { a } from "./a";\nexport type C = typeof a;\n',
      "lib/posts/d.ts": 'import { a } from "./a";\nexport const d = a;\n',
    });
    expect(problems).toEqual(["circle of imports among lib/posts/a.ts, lib/posts/b.ts, lib/posts/c.ts"]);
  });

  it("reports an import for its side effects alone, but not a style sheet", () => {
    const problems = problemsOf({
      "lib/posts/a.ts": 'import "./b";\n',
      "lib/posts/b.ts": "globalThis.x = 1;\n",
      "app/layout.tsx": 'import "./globals.css";\n',
    });
    expect(problems).toEqual(["lib/posts/a.ts imports ./b for its side effects (import what it exports and call it)"]);
  });

  it("reports require, but not in a comment", () => {
    const problems = problemsOf({
      "lib/posts/a.ts": 'const b = require("./b");\nexport const a = b;\n',
      "lib/posts/b.ts": "// require(x) would be wrong here\n/**\n * nor require(y)\n */\nexport const b = 1;\n",
    });
    expect(problems).toEqual(["lib/posts/a.ts uses require (use import)"]);
  });

  it("places the layers in the documented order (a lower rank is a higher layer)", () => {
    const order = [
      "app/page.tsx",
      "lib/routes/table.ts",
      "lib/http/dispatch.ts",
      "lib/uploads/upload.ts",
      "lib/presenters/posts.ts",
      "lib/posts/read.ts",
      "lib/db/client.ts",
      "lib/config/env.ts",
      "lib/errors.ts",
    ];
    const ranks = order.map((file) => layer(file)?.rank);
    expect(ranks.every((rank) => typeof rank === "number")).toBe(true);
    expect([...ranks].sort((a, b) => a! - b!)).toEqual(ranks);
    expect(new Set(ranks).size).toBe(order.length);
  });

  it("has the layers of docs/architecture.md's table, in its order, with the same folders", () => {
    const scripted = (LAYERS as [string, string[]][]).map(([name, paths]): [string, string[]] => [name, [...paths].sort()]);
    expect(documentedLayers()).toEqual(scripted);
  });

  it("places folders, never a file inside one: every file's layer is read from its folder", () => {
    // A prefix is a folder (`lib/replies/`) or a file at the top of the tree or of lib/ (`lib/errors.ts`).
    const single = (LAYERS as [string, string[]][]).flatMap(([, paths]) =>
      paths.filter((path) => !path.endsWith("/") && path.replace(/^lib\//, "").includes("/")),
    );
    expect(single).toEqual([]);
    const folders = (LAYERS as [string, string[]][]).flatMap(([, paths]) => paths.filter((path) => path.endsWith("/")));
    // No folder inside another's: the first match would split it between two layers.
    expect(folders.filter((a) => folders.some((b) => a !== b && a.startsWith(b)))).toEqual([]);
  });

  it('writes an import across folders @/ and one inside the folder ./ (docs/code-style.md, "Imports")', () => {
    const want = conventionalSpecifier as (file: string, spec: string) => string | null;
    expect(want("lib/posts/a.ts", "../db/client")).toBe("@/lib/db/client");
    expect(want("lib/posts/a.ts", "@/lib/posts/b")).toBe("./b");
    expect(want("lib/routes/table/posts.ts", "../posts")).toBe("@/lib/routes/posts");
    expect(want("lib/routes/posts.ts", "./table/posts")).toBe("./table/posts");
    expect(want("app/p/[code]/page.tsx", "../../../components/share/PostMedia")).toBe("@/components/share/PostMedia");
    expect(want("instrumentation.ts", "./lib/server/next-start")).toBe("@/lib/server/next-start");
    expect(want("lib/posts/a.ts", "zod")).toBeNull();
  });

  it("reports an import that breaks the convention", () => {
    const problems = problemsOf({
      "lib/posts/a.ts": 'import { b } from "./b";\nimport { c } from "../db/c";\nexport const a = b + c;\n',
      "lib/posts/b.ts": 'import { c } from "@/lib/db/c";\nexport const b = c;\n',
      "lib/db/c.ts": "export const c = 1;\n",
    });
    expect(problems).toEqual([
      'lib/posts/a.ts imports "../db/c" (write "@/lib/db/c"): across folders @/, inside one ./ (node scripts/fix-imports.mjs)',
    ]);
  });

  it("fix-imports rewrites every kind of import by the convention, and a second run changes nothing", () => {
    const fix = fixImports as (file: string, text: string) => string;
    const text = [
      'import { a } from "@/lib/posts/a";',
      'import type {\n  B,\n} from "../db/b";',
      'export { c } from "../../components/c";',
      'const d = await import("@/lib/posts/sub/d");',
      'import "../styles.css";',
      'import { z } from "zod";',
    ].join("\n");
    const fixed = fix("lib/posts/x.ts", text);
    expect(fixed).toBe(
      [
        'import { a } from "./a";',
        'import type {\n  B,\n} from "@/lib/db/b";',
        'export { c } from "@/components/c";',
        'const d = await import("./sub/d");',
        'import "@/lib/styles.css";',
        'import { z } from "zod";',
      ].join("\n"),
    );
    expect(fix("lib/posts/x.ts", fixed)).toBe(fixed);
  });

  it("knows no layer for a folder nobody placed", () => {
    expect(layer("lib/somewhere-new/thing.ts")).toBeNull();
  });
});
