/**
 * Test files share a worker's module graph (vitest.config.ts). A file that replaces one of
 * our modules with vi.mock must run in the isolated project instead, or its fake would reach
 * the files after it in the worker (and miss the modules an earlier file already loaded); so
 * must a file that measures the process's memory, which other files' work would skew.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, it } from "vitest";
import { ISOLATED_FILES } from "@/vitest.config";

const root = join(import.meta.dirname, "../..");
const testFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "e2e" || entry.name === "browser" ? [] : testFiles(path);
    return entry.name.endsWith(".test.ts") ? [relative(root, path)] : [];
  });

const code = (file: string) => readFileSync(join(root, file), "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
// This file names both patterns, in its regular expressions.
const files = testFiles(join(root, "tests")).filter((file) => file !== relative(root, import.meta.filename));
const isolatedFor = (reason: string) =>
  Object.entries(ISOLATED_FILES)
    .filter(([, why]) => why === reason)
    .map(([file]) => file)
    .sort();

it("every file that mocks a module runs isolated, and only those are listed for it", () => {
  expect(files.filter((file) => /\bvi\.(mock|doMock)\(/.test(code(file))).sort()).toEqual(isolatedFor("mocks a module"));
});

it("every file that measures the process's memory runs isolated, and only those are listed for it", () => {
  expect(files.filter((file) => /\bmemoryUsage\(\)|\.maxRSS\b/.test(code(file))).sort()).toEqual(isolatedFor("measures its memory"));
});
