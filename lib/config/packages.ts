/**
 * Packages only some deployments use, loaded when first needed: static imports held ~50 MB
 * of an idle server on the embedded defaults (docs/performance.md, "Packages loaded when
 * configured"). Resolved from the project root: in a bundle this module's location says nothing.
 */
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { env } from "./env";

let load: NodeJS.Require | undefined;

export function optionalPackage<T>(name: string): T {
  load ??= createRequire(join(resolve(/*turbopackIgnore: true*/ env().APP_ROOT || process.cwd()), "package.json"));
  return load(name) as T;
}
