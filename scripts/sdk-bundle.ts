/**
 * `npm run sdk:bundle`: the SDK as one ES module for browsers, `sdk/dist/mediahost-sdk.js`
 * (openapi-fetch included, no Node built-ins), for pages without a bundler of their own
 * (docs/sdk.md, "In the browser"). tests/e2e/sdk.spec.ts loads the same bundle into a page
 * on another origin. Node code imports sdk/src/node.ts instead.
 */
import { build } from "esbuild";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
export const SDK_BUNDLE = "sdk/dist/mediahost-sdk.js";

/** The browser bundle's text. */
export async function bundleSdk(): Promise<string> {
  const result = await build({
    entryPoints: [join(root, "sdk/src/index.ts")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    legalComments: "inline",
    logLevel: "silent",
  });
  return result.outputFiles[0].text;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const text = await bundleSdk();
  mkdirSync(dirname(join(root, SDK_BUNDLE)), { recursive: true });
  writeFileSync(join(root, SDK_BUNDLE), text);
  console.log(`wrote ${SDK_BUNDLE} (${text.length} bytes)`);
}
