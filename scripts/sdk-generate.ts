/**
 * `npm run sdk:generate`: rewrites the SDK's generated types from the route table
 * (scripts/sdk-types.ts). Run it after changing a route; tests/sdk/generated.test.ts fails
 * until the committed files match.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateAllSdkTypes } from "./sdk-types";

const root = fileURLToPath(new URL("..", import.meta.url));

for (const [path, text] of Object.entries(await generateAllSdkTypes())) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
  console.log(`wrote ${path} (${text.length} bytes)`);
}
