#!/usr/bin/env node
/**
 * `npm test`: vitest (arguments are passed on to it) and the Playwright end-to-end suite, at
 * the same time. Exits non-zero when either fails. A missing browser is a failure, reported
 * before anything runs, never a silent skip (docs/e2e-tests.md); `E2E=0` leaves the browser
 * suite out on purpose.
 *
 * Why at the same time: both wait on servers, browsers and media tools far more than they
 * compute (docs/development.md, "Test time"), so on two cores the one's waiting is the
 * other's CPU time. vitest prints as it runs; Playwright's output goes to
 * test-results/e2e-output.log and is printed after vitest's, so neither interleaves.
 */
import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync } from "node:fs";
import { findChromium, missingChromiumMessage } from "./chromium.mjs";

const bin = (name) => new URL(`../node_modules/.bin/${name}`, import.meta.url).pathname;
const exitOf = (child) => new Promise((done) => child.on("close", (code, signal) => done(code ?? (signal ? 1 : 0))));

const e2eWanted = process.env.E2E !== "0";
const chromium = e2eWanted ? findChromium() : null;
if (e2eWanted && !chromium) {
  console.error(`\n${missingChromiumMessage()}\n`);
  process.exit(1);
}

let e2eDone = Promise.resolve(0);
const e2eLog = "test-results/e2e-output.log";
if (e2eWanted) {
  mkdirSync("test-results", { recursive: true });
  const out = createWriteStream(e2eLog);
  // CI=true keeps Playwright's "line" reporter (playwright.config.ts): readable in a file.
  const e2e = spawn(bin("playwright"), ["test"], { stdio: ["ignore", "pipe", "pipe"] });
  e2e.stdout.pipe(out, { end: false });
  e2e.stderr.pipe(out, { end: false });
  e2eDone = exitOf(e2e).then((code) => new Promise((done) => out.end(() => done(code))));
}

const unit = await exitOf(spawn(bin("vitest"), ["run", ...process.argv.slice(2)], { stdio: "inherit" }));
let e2e = 0;
if (!e2eWanted) {
  console.log("\nE2E=0: end-to-end tests left out.");
} else {
  console.log(`\n==> end-to-end tests (Playwright, ${chromium}), started with vitest; output kept in ${e2eLog}`);
  e2e = await e2eDone;
  process.stdout.write(readFileSync(e2eLog, "utf8"));
}
process.exit(unit || e2e);
