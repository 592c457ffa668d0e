/**
 * `npm run build`: a production build now, whether or not the sources changed, recorded
 * with its source fingerprint so that `npm start` reuses it (lib/server/build.ts).
 */
import { resolve } from "node:path";
import { runNextBuild } from "../lib/server/build";

try {
  await runNextBuild(resolve(process.cwd()));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
