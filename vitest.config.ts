import { defineConfig, configDefaults } from "vitest/config";
import { fileURLToPath } from "node:url";

/**
 * Files that need a process of their own (tests/project/test-isolation.test.ts keeps the
 * list complete and exact): those that replace one of our modules with vi.mock (shared, a
 * mock would outlive its file, or arrive after an earlier file loaded the real module), and
 * those that measure the process's own memory (a worker that ran other files has a heap of
 * their making).
 */
export const ISOLATED_FILES: Readonly<Record<string, "mocks a module" | "measures its memory">> = {
  "tests/relay-account/login-limits.test.ts": "mocks a module",
  "tests/sdk/client.test.ts": "measures its memory",
  "tests/accounts/export.test.ts": "measures its memory",
};
const isolated = Object.keys(ISOLATED_FILES);

const include = ["tests/**/*.test.ts"];
/** Files a run leaves out, comma-separated: `.ci/run`'s PostgreSQL + Redis pass names those that check neither. */
const leftOut = (process.env.TEST_EXCLUDE ?? "").split(",").filter(Boolean);
const exclude = [...configDefaults.exclude, "tests/browser/**", "tests/e2e/**", ...leftOut];

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL("./", import.meta.url)) } },
  test: {
    pool: "forks",
    // Three on two cores: many files wait (an expiry, a server's start, a child process), and
    // a third worker fills that time (359 → 303 s on 6 December; docs/development.md,
    // "Test time"). TEST_WORKERS sets another number (.ci/run's pass beside the browser suite).
    maxWorkers: Number(process.env.TEST_WORKERS) || 3,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    globalSetup: ["tests/support/global-setup.ts"],
    setupFiles: ["tests/support/per-file.ts"],
    // A query's time bound (3 s by default, docs/faults.md) is for a database that stopped
    // answering; a CI machine running both test lanes side by side can take longer for an
    // answer that is merely slow. tests/faults/database.test.ts gives its server the default.
    env: { NODE_ENV: "test", DATABASE_QUERY_TIMEOUT_MS: "15000" },
    projects: [
      // One module graph per worker, not per file: loading it afresh for each of ~190 files
      // was 90 s of the run's CPU. tests/support/per-file.ts gives each file a clean start.
      { extends: true, test: { name: "shared", include, exclude: [...exclude, ...isolated], isolate: false } },
      { extends: true, test: { name: "isolated", include: isolated, exclude, isolate: true } },
    ],
  },
});
