// Writes the per-provider Prisma schemas from prisma/schema.base.prisma and generates a
// client for each. Runs on `npm install` (postinstall) and needs no network: Prisma's CLI
// would otherwise try to download its native schema engine, which `generate` never uses.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const base = readFileSync(join(root, "prisma/schema.base.prisma"), "utf8");

export const PROVIDERS = {
  sqlite: "sqlite",
  postgres: "postgresql",
};

export function schemaFor(name) {
  const header = [
    "// GENERATED from prisma/schema.base.prisma by scripts/prisma-generate.mjs: edit that file.",
    "generator client {",
    '  provider = "prisma-client"',
    `  output   = "../../lib/db/generated/${name}"`,
    '  runtime  = "nodejs"',
    "}",
    "",
    "datasource db {",
    `  provider = "${PROVIDERS[name]}"`,
    "}",
  ].join("\n");
  return base.replace("//__HEADER__", header);
}

export function writeSchemas() {
  const paths = {};
  for (const name of Object.keys(PROVIDERS)) {
    const path = join(root, "prisma", name, "schema.prisma");
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, schemaFor(name));
    paths[name] = path;
  }
  return paths;
}

/**
 * Points the generated client's query compiler at lib/db/prisma-wasm.ts, which reads the
 * WebAssembly's base64 from the file instead of importing it as a module that would stay in
 * memory for good (docs/performance.md, "Prisma's query compiler read from its file"). The import stays as the fallback. Fails loudly when a
 * Prisma upgrade changes the generated code, so the patch is never silently lost.
 */
export function loadWasmAsFile(name) {
  const file = join(root, "lib/db/generated", name, "internal/class.ts");
  const text = readFileSync(file, "utf8");
  const pattern = /const \{ wasm \} = await import\("@prisma\/client\/runtime\/(query_compiler_[a-z_]+\.[a-z]+\.wasm-base64\.mjs)"\)/;
  const match = pattern.exec(text);
  if (!match) throw new Error(`${file}: Prisma's wasm import not found; update loadWasmAsFile in scripts/prisma-generate.mjs`);
  const patched =
    `const wasm = (await (await import("../../../prisma-wasm")).prismaWasmBase64("${match[1]}")) ??\n` +
    `      (await import("@prisma/client/runtime/${match[1]}")).wasm`;
  writeFileSync(file, text.replace(match[0], patched));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const paths = writeSchemas();
  const prisma = join(root, "node_modules/prisma/build/index.js");
  for (const [name, path] of Object.entries(paths)) {
    execFileSync(process.execPath, [prisma, "generate", "--schema", path], {
      cwd: root,
      stdio: process.argv.includes("--verbose") ? "inherit" : ["ignore", "ignore", "inherit"],
      env: {
        ...process.env,
        PRISMA_SCHEMA_ENGINE_BINARY: "/bin/false",
        PRISMA_HIDE_UPDATE_MESSAGE: "1",
        CHECKPOINT_DISABLE: "1",
      },
    });
    loadWasmAsFile(name);
    console.log(`prisma client generated for ${name}`);
  }
}
