/**
 * Packages that only some deployments use — PostgreSQL's driver and Prisma adapter,
 * ioredis, prom-client, @vercel/blob — loaded the first time a deployment needs them.
 *
 * A static import loads a package when the server starts, whether it is configured or not,
 * and in a bundle even a statically linked module's packages load at start (scripts/launch.mjs
 * splits only at dynamic imports). Together these held ~50 MB of an idle server on the embedded
 * defaults (SQLite, disk, memory counters) that never used them (docs/performance.md,
 * "Packages loaded when configured"). Call sites keep their types with `typeof import()`.
 *
 * Resolved from the project root (APP_ROOT, else the working directory, as the migrator
 * and lib/db/prisma-wasm.ts do): this module is bundled (the custom server, Next), where
 * its own location says nothing. The name is a parameter, so no bundler resolves it.
 */
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { env } from "./env";

let load: NodeJS.Require | undefined;

export function optionalPackage<T>(name: string): T {
  load ??= createRequire(join(resolve(/*turbopackIgnore: true*/ env().APP_ROOT || process.cwd()), "package.json"));
  return load(name) as T;
}
