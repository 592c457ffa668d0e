#!/usr/bin/env node
/**
 * `npm test`: vitest (arguments are passed on to it), then the Playwright end-to-end suite
 * when Debian's Chromium is installed (/usr/bin/chromium; `.ci/run` installs it). Exits
 * non-zero when either fails. `E2E=0` skips the browser suite.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const bin = (name) => new URL(`../node_modules/.bin/${name}`, import.meta.url).pathname;
const run = (command, args) => spawnSync(command, args, { stdio: "inherit" }).status ?? 1;

const unit = run(bin("vitest"), ["run", ...process.argv.slice(2)]);
let e2e = 0;
if (process.env.E2E === "0") {
  console.log("\nE2E=0: end-to-end tests skipped.");
} else if (existsSync("/usr/bin/chromium")) {
  console.log("\n==> end-to-end tests (Playwright, /usr/bin/chromium)");
  e2e = run(bin("playwright"), ["test"]);
} else {
  console.log("\n/usr/bin/chromium not found: end-to-end tests skipped (apt-get install -y chromium).");
}
process.exit(unit || e2e);
