/**
 * The end-to-end tests fail, never skip, when their browser is missing (docs/e2e-tests.md):
 * `npm test` (scripts/test.mjs) stops before running anything, and Playwright's config
 * refuses to load, both naming the path and how to fix it.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_CHROMIUM, findChromium } from "@/scripts/chromium.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const MISSING = "/nonexistent/chromium";

function runWithout(args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, CHROMIUM_PATH: MISSING };
  delete env.E2E;
  for (const name of Object.keys(env)) if (name.startsWith("VITEST")) delete env[name];
  // A file filter matching nothing: should the check ever let vitest start, it runs no tests.
  return spawnSync(process.execPath, args, { cwd: root, env, encoding: "utf8", timeout: 60_000 });
}

describe("a missing browser", () => {
  const saved = process.env.CHROMIUM_PATH;
  afterEach(() => {
    if (saved === undefined) delete process.env.CHROMIUM_PATH;
    else process.env.CHROMIUM_PATH = saved;
  });

  it("is found only when the file is an executable", () => {
    process.env.CHROMIUM_PATH = MISSING;
    expect(findChromium()).toBeNull();
    process.env.CHROMIUM_PATH = process.execPath;
    expect(findChromium()).toBe(process.execPath);
    delete process.env.CHROMIUM_PATH;
    expect(DEFAULT_CHROMIUM).toBe("/usr/bin/chromium-headless-shell");
  });

  it("fails `npm test` before anything runs", () => {
    const result = runWithout(["scripts/test.mjs", "tests/project/no-such-test-file"]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`Chromium not found at ${MISSING}`);
    expect(result.stderr).toContain("apt-get install -y chromium-headless-shell");
    expect(result.stdout).not.toMatch(/RUN\s+v\d/);
  });

  it("fails Playwright's configuration with the same message", () => {
    const result = runWithout(["node_modules/@playwright/test/cli.js", "test", "--list"]);
    expect(result.status).not.toBe(0);
    expect(`${result.stdout}${result.stderr}`).toContain(`Chromium not found at ${MISSING}`);
  });
});
