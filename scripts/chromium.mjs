/**
 * The browser of the end-to-end tests: Debian's build of Chromium's headless shell
 * (`apt-get install -y chromium-headless-shell`; `.ci/run` installs it), the same old-headless
 * browser Playwright runs headless tests in, or the executable in CHROMIUM_PATH. Playwright
 * never downloads one. Not the full `chromium`: headless, it ran the suite with twice the CPU
 * (docs/e2e-tests.md).
 * Shared by playwright.config.ts and scripts/test.mjs so both name the same file and give
 * the same message when it is missing (docs/e2e-tests.md).
 */
import { accessSync, constants } from "node:fs";

export const DEFAULT_CHROMIUM = "/usr/bin/chromium-headless-shell";

/** The configured browser's path, whether or not it exists. */
export function chromiumPath() {
  return process.env.CHROMIUM_PATH || DEFAULT_CHROMIUM;
}

/** The path when it is an executable file; null otherwise. */
export function findChromium() {
  const path = chromiumPath();
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    return null;
  }
}

export function missingChromiumMessage() {
  return (
    `Chromium not found at ${chromiumPath()}: the end-to-end tests cannot run. ` +
    `Install it (apt-get install -y chromium-headless-shell) or point CHROMIUM_PATH at a Chromium; ` +
    `E2E=0 leaves the browser tests out on purpose.`
  );
}
