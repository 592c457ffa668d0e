/**
 * The browser of the end-to-end tests: Debian's Chromium (`apt-get install -y chromium`;
 * `.ci/run` installs it), or the executable in CHROMIUM_PATH. Playwright never downloads one.
 * Shared by playwright.config.ts and scripts/test.mjs so both name the same file and give
 * the same message when it is missing (docs/e2e-tests.md).
 */
import { accessSync, constants } from "node:fs";

export const DEFAULT_CHROMIUM = "/usr/bin/chromium";

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
    `Install it (apt-get install -y chromium) or point CHROMIUM_PATH at a Chromium; ` +
    `E2E=0 leaves the browser tests out on purpose.`
  );
}
