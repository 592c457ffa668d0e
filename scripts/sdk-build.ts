/**
 * `npm run sdk:build` (or `npm run build` in sdk/): the SDK as a package (docs/sdk.md,
 * "As a package"), in sdk/dist:
 *
 * - `index.js` (browsers and any runtime) and `node.js` (adds `fromPath`): ES modules from
 *   esbuild, openapi-fetch bundled in, so the package has no dependencies and installs
 *   offline; the code both share is one chunk, so `MediaHostError` is one class;
 * - `.d.ts` beside them from tsc, with openapi-fetch's own declarations (MIT) copied into
 *   `dist/vendor/` and the imports pointed there, so types resolve under
 *   `moduleResolution: nodenext` and `bundler` alike;
 * - `README.md` from docs/sdk.md's package section is the package's README.
 *
 * The version in sdk/package.json must equal the OpenAPI documents' `info.version` (the API
 * version): the build refuses otherwise.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { API_VERSION } from "../lib/http/openapi";

const root = fileURLToPath(new URL("..", import.meta.url));
const sdk = join(root, "sdk");
const dist = join(sdk, "dist");

const pkg = JSON.parse(readFileSync(join(sdk, "package.json"), "utf8")) as { version: string };
if (pkg.version !== API_VERSION) throw new Error(`sdk/package.json version ${pkg.version} is not the API version ${API_VERSION}`);

rmSync(dist, { recursive: true, force: true });
await build({
  entryPoints: { index: join(sdk, "src/index.ts"), node: join(sdk, "src/node.ts") },
  outdir: dist,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "neutral",
  mainFields: ["module", "main"],
  external: ["node:*"],
  target: "es2022",
  legalComments: "inline",
  chunkNames: "shared-[hash]",
  logLevel: "warning",
});

// Declarations: tsc over the SDK alone; the generated .d.ts inputs are copied as they are.
execFileSync(
  process.execPath,
  [
    join(root, "node_modules/typescript/bin/tsc"),
    ...["--declaration", "--emitDeclarationOnly", "--outDir", dist, "--rootDir", join(sdk, "src")],
    ...["--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--lib", "es2022,dom"],
    ...["--strict", "--skipLibCheck", "--types", "node"],
    join(sdk, "src/index.ts"),
    join(sdk, "src/node.ts"),
  ],
  { cwd: sdk, stdio: "inherit" },
);
mkdirSync(join(dist, "generated"), { recursive: true });
for (const name of readdirSync(join(sdk, "src/generated"))) copyFileSync(join(sdk, "src/generated", name), join(dist, "generated", name));

const vendor = join(dist, "vendor");
mkdirSync(vendor, { recursive: true });
const fetchTypes = readFileSync(join(root, "node_modules/openapi-fetch/dist/index.d.ts"), "utf8");
writeFileSync(
  join(vendor, "openapi-fetch.d.ts"),
  fetchTypes.replaceAll("'openapi-typescript-helpers'", "'./openapi-typescript-helpers.js'"),
);
copyFileSync(join(root, "node_modules/openapi-typescript-helpers/dist/index.d.ts"), join(vendor, "openapi-typescript-helpers.d.ts"));
for (const [name, from] of [
  ["openapi-fetch.LICENSE", "node_modules/openapi-fetch/LICENSE"],
  ["openapi-typescript-helpers.LICENSE", "node_modules/openapi-typescript-helpers/LICENSE"],
]) {
  try {
    copyFileSync(join(root, from), join(vendor, name));
  } catch {
    // a package without its LICENSE file: the bundle's inline legal comments remain
  }
}
for (const name of readdirSync(dist)) {
  if (!name.endsWith(".d.ts")) continue;
  const path = join(dist, name);
  writeFileSync(path, readFileSync(path, "utf8").replaceAll('"openapi-fetch"', '"./vendor/openapi-fetch.js"'));
}

const docs = readFileSync(join(root, "docs/sdk.md"), "utf8");
const start = docs.indexOf("## As a package");
const section = docs.slice(start, docs.indexOf("\n## ", start + 1));
writeFileSync(
  join(sdk, "README.md"),
  `# @mediahost/sdk\n\nTyped client for the Mediahost API and Relay.\n\n${section.replace(/^## As a package\n/, "")}`,
);
console.log(`built sdk/dist (version ${pkg.version})`);
