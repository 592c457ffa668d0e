import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Environment, setting } from "@/lib/config/env";

export type DatabaseProvider = "sqlite" | "postgres";

/** Prisma's `?schema=` split off a PostgreSQL URL (schema null: `public`). */
export function postgresTarget(url: string): { connectionString: string; schema: string | null } {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get("schema") || null;
  parsed.searchParams.delete("schema");
  return { connectionString: parsed.toString(), schema };
}

export interface DatabaseConfig {
  provider: DatabaseProvider;
  url: string;
}

export function dataDir(env: Environment = process.env): string {
  // turbopackIgnore: a runtime path, not a build input (silences whole-project file tracing).
  return resolve(/* turbopackIgnore: true */ setting("DATA_DIR", env) ?? "./data");
}

/** `DATABASE_URL` starting with postgres is PostgreSQL; anything else is SQLite under DATA_DIR. */
export function databaseConfig(env: Environment = process.env): DatabaseConfig {
  const url = setting("DATABASE_URL", env) ?? "";
  if (/^postgres(ql)?:\/\//i.test(url)) return { provider: "postgres", url };
  if (url.startsWith("file:")) return { provider: "sqlite", url: resolve(url.slice("file:".length)) };
  const dir = dataDir(env);
  mkdirSync(dir, { recursive: true });
  return { provider: "sqlite", url: join(dir, "mediahost.db") };
}
