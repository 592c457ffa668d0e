/**
 * The Prisma query compiler's WebAssembly read from its file, so its base64 text is garbage
 * once compiled instead of held by a module for good (docs/performance.md, "Prisma's query
 * compiler read from its file"). Undefined when not found: the client imports the module.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export async function prismaWasmBase64(file: string): Promise<string | undefined> {
  try {
    // From the project root: this module is also bundled, where its own location says nothing.
    // Built at run time so that no bundler resolves it.
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
