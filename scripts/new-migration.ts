/**
 * Creates a migration for both providers from the change to prisma/schema.base.prisma:
 *   npm run db:migration -- <name>
 * Each provider's SQL is the diff between its saved snapshot and the current schema; the
 * snapshot is then updated. The same folder name is used for both, so they stay in step.
 */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeSchemas } from "./prisma-generate.mjs";
import { diffToSchema, migrationsDir, prismaDir, snapshotPath } from "../lib/db/migrator";
import type { DatabaseConfig } from "../lib/db/config";

const name = (process.argv[2] || "").replace(/[^a-z0-9_]+/gi, "_").toLowerCase();
if (!name) {
  console.error("usage: npm run db:migration -- <name>");
  process.exit(2);
}
writeSchemas();
const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
const folder = `${stamp}_${name}`;
const configs: DatabaseConfig[] = [
  { provider: "sqlite", url: ":memory:" },
  { provider: "postgres", url: process.env.TEST_DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/test" },
];
for (const config of configs) {
  const dir = migrationsDir(config.provider);
  mkdirSync(dir, { recursive: true });
  const lock = join(dir, "migration_lock.toml");
  writeFileSync(lock, `# Written by scripts/new-migration.ts\nprovider = "${config.provider === "postgres" ? "postgresql" : "sqlite"}"\n`);
  const sql = await diffToSchema(config, "snapshot");
  if (!sql) {
    console.log(`${config.provider}: schema unchanged, no migration written`);
    continue;
  }
  mkdirSync(join(dir, folder), { recursive: true });
  writeFileSync(join(dir, folder, "migration.sql"), `${sql}\n`);
  copyFileSync(join(prismaDir(config.provider), "schema.prisma"), snapshotPath(config.provider));
  console.log(`${config.provider}: wrote ${join(dir, folder, "migration.sql")}`);
}
