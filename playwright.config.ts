/**
 * End-to-end tests in a real Chromium (Debian's /usr/bin/chromium, or CHROMIUM_PATH; nothing
 * is ever downloaded) against one real production server started by
 * tests/e2e/global-setup.ts on embedded SQLite in a temporary DATA_DIR.
 */
import { defineConfig, devices } from "@playwright/test";
import { findChromium, missingChromiumMessage } from "./scripts/chromium.mjs";

// A missing browser fails the run with a clear message (not Playwright's launch error per test).
const chromium = findChromium();
if (!chromium) throw new Error(missingChromiumMessage());

// Chosen once in the main process; workers inherit it through the environment.
process.env.E2E_PORT ||= String(20_000 + Math.floor(Math.random() * 20_000));
const baseURL = `http://127.0.0.1:${process.env.E2E_PORT}`;

export default defineConfig({
  testDir: "tests/e2e",
  testMatch: "*.spec.ts",
  outputDir: "test-results/e2e",
  globalSetup: "./tests/e2e/global-setup.ts",
  // One server on a 2-core machine: files run one after another, tests in a file in order.
  workers: 1,
  fullyParallel: false,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? "line" : "list",
  use: {
    baseURL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: chromium,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"], channel: undefined } }],
});
