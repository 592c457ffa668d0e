/**
 * The Debian packages the tests need beyond Node (one list for `npm test` and `.ci/run`):
 * the browser of the end-to-end tests, ffmpeg, Tesseract with English, nginx, and a
 * compiler for better-sqlite3. `npm test` installs what is missing when it runs as root
 * with apt-get (as `.ci/run` does); otherwise it stops at once with the one command to run
 * (README, "Tests").
 *
 *   node scripts/system-packages.mjs            lists what is missing (exit 1 when anything is)
 *   node scripts/system-packages.mjs --install  installs it (root or sudo, apt-get)
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromiumPath } from "./chromium.mjs";

const executable = (path) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};
const onPath = (command) => spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;

/** [package, present?] for everything the tests use. */
const NEEDS = () => [
  ["python3", onPath("python3")],
  ["make", onPath("make")],
  ["g++", onPath("g++")],
  // The browser suite runs Debian's Chromium headless shell, never a downloaded browser.
  ["chromium-headless-shell", process.env.CHROMIUM_PATH ? executable(chromiumPath()) : executable("/usr/bin/chromium-headless-shell")],
  // The system's maintained ffmpeg/ffprobe (docs/media.md, "Binaries").
  ["ffmpeg", executable("/usr/bin/ffmpeg") && executable("/usr/bin/ffprobe")],
  // Text in images (docs/ocr.md).
  ["tesseract-ocr", executable("/usr/bin/tesseract")],
  ["tesseract-ocr-eng", existsSync("/usr/share/tesseract-ocr/5/tessdata/eng.traineddata")],
  // The delivery offload and proxy tests run behind Debian's nginx.
  ["nginx", executable("/usr/sbin/nginx")],
];

export function missingPackages() {
  return NEEDS()
    .filter(([, present]) => !present)
    .map(([name]) => name);
}

export function installCommand(packages) {
  return `sudo apt-get update && sudo apt-get install -y --no-install-recommends ${packages.join(" ")}`;
}

/** Installs `packages` with apt-get when that can be done here (root, or sudo without a password); false otherwise. */
export function installPackages(packages, log = (line) => console.error(line)) {
  if (!packages.length) return true;
  if (!onPath("apt-get")) return false;
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  const sudo = root ? [] : spawnSync("sudo", ["-n", "true"], { stdio: "ignore" }).status === 0 ? ["sudo"] : null;
  if (!sudo) return false;
  log(`==> apt-get install ${packages.join(" ")}`);
  const run = (args) => {
    const [command, ...rest] = [...sudo, ...args];
    return spawnSync(command, rest, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } }).status === 0;
  };
  return run(["apt-get", "update"]) && run(["apt-get", "install", "-y", "--no-install-recommends", ...packages]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const missing = missingPackages();
  if (process.argv.includes("--install")) {
    if (!installPackages(missing)) {
      console.error(`Cannot install ${missing.join(" ")} here (needs apt-get as root or sudo). Run:\n  ${installCommand(missing)}`);
      process.exit(1);
    }
  } else if (missing.length) {
    console.log(missing.join("\n"));
    process.exit(1);
  }
}
