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

/**
 * Three workers, each with a server of its own (tests/e2e/global-setup.ts starts one per
 * worker): some specs mostly wait (a rate limit's 30 s window, a stream being made), and a
 * third worker fills that time (275 → 248 s, measured in the full Chromium); a server per
 * worker shares no accounts, rate-limit counters or settings between them.
 */
export const E2E_WORKERS = Number(process.env.E2E_WORKERS) || 3;

// The first server's port, chosen once in the main process; workers inherit it through the
// environment. Below Linux's ephemeral range (32768 and up), where the OS picks ports for
// other tests' servers that may run at the same time (scripts/test.mjs).
process.env.E2E_BASE_PORT ||= String(20_000 + 2 * Math.floor(Math.random() * 6_000));
// In a worker (TEST_PARALLEL_INDEX is set before it loads this file): its own server's port
// (each server takes two: its own and the one after it, where accounts.spec.ts's mailbox listens).
const index = Number(process.env.TEST_PARALLEL_INDEX ?? 0);
process.env.E2E_PORT = String(Number(process.env.E2E_BASE_PORT) + 2 * index);
if (process.env[`E2E_SERVER_ENV_${index}`]) process.env.E2E_SERVER_ENV = process.env[`E2E_SERVER_ENV_${index}`];
const baseURL = `http://127.0.0.1:${process.env.E2E_PORT}`;

export default defineConfig({
  testDir: "tests/e2e",
  testMatch: "*.spec.ts",
  outputDir: "test-results/e2e",
  globalSetup: "./tests/e2e/global-setup.ts",
  // Files spread over the workers; tests in a file run in order, in one worker.
  workers: E2E_WORKERS,
  fullyParallel: false,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? "line" : "list",
  use: {
    baseURL,
    // A trace records every action's DOM snapshot and screenshot, kept or not: about 100 s,
    // a fifth of the suite's CPU. E2E_TRACE=1 records them (kept for failed tests).
    trace: process.env.E2E_TRACE === "1" ? "retain-on-failure" : "off",
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
