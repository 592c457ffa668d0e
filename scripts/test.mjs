#!/usr/bin/env node
/**
 * `npm test`: vitest (arguments are passed on to it), then the Playwright end-to-end suite.
 * Exits non-zero when either fails. A missing browser is a failure, reported before
 * anything runs, never a silent skip (docs/e2e-tests.md); `E2E=0` leaves the browser suite
 * out on purpose.
 *
 * One after the other, not side by side: both suites are CPU-bound on two cores (Playwright
 * alone used 933 s of CPU), and run together they took as long as in turn while the
 * CPU-heavy tests (password hashing, ffmpeg, a console page per visitor) ran into their
 * timeouts (docs/development.md, "Test time").
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { findChromium, missingChromiumMessage } from "./chromium.mjs";
import { installCommand, installPackages, missingPackages } from "./system-packages.mjs";

const bin = (name) => new URL(`../node_modules/.bin/${name}`, import.meta.url).pathname;
const run = (command, args) => spawnSync(command, args, { stdio: "inherit" }).status ?? 1;

const e2eWanted = process.env.E2E !== "0";
// What the suite needs from Debian (the browser, ffmpeg, Tesseract, nginx): installed here
// when it can be (root or sudo, apt-get), as .ci/run does; otherwise the run stops at once
// with the one command to run, not after minutes of tests.
const missing = missingPackages().filter((name) => e2eWanted || name !== "chromium-headless-shell");
if (missing.length && !installPackages(missing)) {
  console.error(`
The tests need Debian packages that are not installed: ${missing.join(", ")}. Run:

  ${installCommand(missing)}
`);
  if (!e2eWanted || missing.some((name) => name !== "chromium-headless-shell")) process.exit(1);
}
const chromium = e2eWanted ? findChromium() : null;
if (e2eWanted && !chromium) {
  console.error(`\n${missingChromiumMessage()}\n`);
  process.exit(1);
}

const unit = run(bin("vitest"), ["run", ...process.argv.slice(2)]);
// `.ci/run` starts its PostgreSQL + Redis pass once vitest is done, beside Playwright, which
// leaves about one of the two cores idle (docs/development.md, "Test time").
if (process.env.TEST_UNIT_DONE_FILE) writeFileSync(process.env.TEST_UNIT_DONE_FILE, `${unit}\n`);
let e2e = 0;
if (!e2eWanted) {
  console.log("\nE2E=0: end-to-end tests left out.");
} else {
  console.log(`\n==> end-to-end tests (Playwright, ${chromium})`);
  e2e = run(bin("playwright"), ["test"]);
}
process.exit(unit || e2e);
