/**
 * The Prisma query compiler's WebAssembly, loaded without keeping its text for good.
 *
 * Prisma's generated client imports it as an ES module holding the binary as a base64
 * string (`query_compiler_fast_bg.<provider>.wasm-base64.mjs`). A module stays in memory
 * as long as the process: its source text and the string, a large part of the server's idle
 * heap, and more of its peak RSS with the heap allowed to grow under load
 * (docs/performance.md, "Prisma's query compiler read from its file"). Read as a file
 * instead, both are garbage once the module is compiled. scripts/prisma-generate.mjs points
 * the generated clients here; when the file cannot be found this answers undefined and the
 * client imports the module as before.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The base64 text of `file` in @prisma/client's runtime folder, or undefined. */
export async function prismaWasmBase64(file: string): Promise<string | undefined> {
  try {
    // From the project root (where `npm start`, the CLI and the tests run): this module is
    // also bundled (the custom server, Next), where its own location says nothing. The
    // specifier is built at run time so that no bundler resolves it at build time.
    const require = createRequire(join(process.cwd(), "package.json"));
    const runtime = dirname(require.resolve(["@prisma", "client", "runtime", "client"].join("/")));
    const text = await readFile(join(runtime, file), "utf8");
    // Found with indexOf, not a regular expression: a pattern over the 4 MB of base64 threw
    // "Maximum call stack size exceeded" in a test worker that had run for a while, and the
    // client then silently imported the module this file exists to avoid.
    const opening = 'const wasm = "';
    const start = text.indexOf(opening);
    const end = start < 0 ? -1 : text.indexOf('"', start + opening.length);
    return end < 0 ? undefined : text.slice(start + opening.length, end);
  } catch {
    return undefined;
  }
}
