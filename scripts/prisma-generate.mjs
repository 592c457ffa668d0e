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
    console.log(`prisma client generated for ${name}`);
  }
}
