import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL("./", import.meta.url)) } },
  test: {
    include: ["tests/**/*.test.ts"],
    exclude: ["tests/browser/**", "tests/e2e/**", "node_modules/**"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    globalSetup: ["tests/support/global-setup.ts"],
    setupFiles: ["tests/support/per-file.ts"],
    env: { NODE_ENV: "test" },
  },
});
