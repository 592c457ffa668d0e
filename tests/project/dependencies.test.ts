/**
 * Every package in package.json is used by something in the repository (docs/rate-limits.md
 * tells how an unused one crept in): imported, required or resolved by name from our code,
 * run by an npm script, or one of the few that are used without being named (listed below,
 * each with the reason).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** Used without their name appearing in our code. */
const UNNAMED: Record<string, string> = {
  "react-dom": "Next.js renders the pages with it (a peer dependency of next)",
  postcss: "runs the Tailwind plugin named in postcss.config.mjs (a peer dependency of @tailwindcss/postcss)",
  typescript: "`tsc` of `npm run typecheck`",
  "@biomejs/biome": "`biome check` of `npm run lint` and `npm run format` (docs/code-style.md)",
  "@types/node": "ambient types of Node's modules",
  "@types/react-dom": "types of react-dom, used through Next",
  "@prisma/streams-local":
    "a stub standing in for prisma dev's package through package.json's overrides (docs/development.md, \"Dependencies\")",
};

const SOURCE_DIRS = ["app", "bench", "components", "lib", "scripts", "sdk", "tests", ".ci"];
const SOURCE = /\.(ts|tsx|mts|mjs|cjs|js)$/;

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      // Generated Prisma clients name their runtime; that is not our use of it.
      if (entry.name !== "node_modules" && entry.name !== "generated") out.push(...sources(path));
    } else if (SOURCE.test(entry.name) || entry.name === "run") out.push(path);
  }
  return out;
}

const rootFiles = readdirSync(root).filter((name) => SOURCE.test(name));
const text = [...SOURCE_DIRS.flatMap((dir) => sources(join(root, dir))), ...rootFiles.map((name) => join(root, name))]
  .filter((path) => !path.endsWith("tests/project/dependencies.test.ts"))
  .map((path) => readFileSync(path, "utf8"))
  .join("\n");
const scripts = Object.values(pkg.scripts).join("\n");

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** Named as a module (`"name"`, `"name/sub"`) or a path under node_modules. */
function named(name: string): boolean {
  const specifier = new RegExp(`["'\`]${escapeRegExp(name)}(?:/[^"'\`]*)?["'\`]|node_modules/${escapeRegExp(name)}/`);
  return specifier.test(text);
}

/** A package whose command an npm script runs. */
const COMMANDS: Record<string, string> = { tsx: "tsx", vitest: "vitest", "@playwright/test": "playwright", prisma: "prisma" };
const runByScript = (name: string): boolean => name in COMMANDS && new RegExp(`(^|[\\s;&])${COMMANDS[name]}\\b`, "m").test(scripts);

function used(name: string): boolean {
  if (name in UNNAMED || named(name) || runByScript(name)) return true;
  // @types/x is used when x is.
  if (name.startsWith("@types/")) {
    const target = name.slice("@types/".length).replace(/^(.+)__(.+)$/, "@$1/$2");
    return named(target);
  }
  return false;
}

describe("package.json", () => {
  it("every dependency is used by something in the repository", () => {
    const all = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)];
    expect(all.filter((name) => !used(name))).toEqual([]);
  });

  it("the check finds an unused package", () => {
    expect(used("rate-limiter-flexible")).toBe(false);
    expect(used("left-pad")).toBe(false);
    expect(used("zod")).toBe(true);
  });
});
