/**
 * The private parts of Prisma our code relies on, pinned so that an upgrade that moves
 * them fails here, by name, instead of somewhere downstream (docs/database.md, "Prisma
 * internals we rely on"):
 * - the offline migrator (lib/db/migrator.ts) loads @prisma/schema-engine-wasm by hand:
 *   its `schema_engine_bg` module, the `.wasm` file beside it, wasm-bindgen's
 *   `__wbg_set_wasm` / `__wbindgen_start`, and `SchemaEngine.new(options, log, adapter)`
 *   with `applyMigrations`, `diff` and `free`; that build must be the one the CLI's
 *   engines were built from;
 * - the statement cache (lib/db/sqlite-statements.ts) finds better-sqlite3 as the
 *   adapter's `client` property and serves the adapter's `prepare(sql).bind(args)` calls.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAdapter } from "@/lib/db/adapter";
import { sqliteClientOf } from "@/lib/db/sqlite-statements";

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL("../..", import.meta.url));
/** Read from node_modules: some of these packages do not export their package.json. */
const versionOf = (name: string): string =>
  (JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
const INT = { scalarType: "int", arity: "scalar" } as const;
const TEXT = { scalarType: "string", arity: "scalar" } as const;

describe("Prisma packages", () => {
  it("are all at one version", () => {
    const names = ["prisma", "@prisma/client", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "@prisma/driver-adapter-utils"];
    const versions = new Set(names.map(versionOf));
    expect([...versions]).toHaveLength(1);
    // The schema engine's build is "<prisma version>-<n>.<engines commit>".
    expect(versionOf("@prisma/schema-engine-wasm").startsWith(`${versionOf("prisma")}-`)).toBe(true);
  });

  it("the wasm schema engine is the build of the CLI's engines", () => {
    // @prisma/engines-version is the CLI's dependency, not ours: resolve it from prisma.
    const fromEngines = createRequire(join(root, "node_modules/@prisma/engines/package.json"));
    const { enginesVersion } = fromEngines("@prisma/engines-version") as { enginesVersion: string };
    expect(versionOf("@prisma/schema-engine-wasm").endsWith(`.${enginesVersion}`)).toBe(true);
  });
});

describe("what the migrator uses of @prisma/schema-engine-wasm", () => {
  it("loads the wasm-bindgen module by hand", async () => {
    const bgPath = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
    const bg = (await import(bgPath)) as Record<string, unknown>;
    expect(typeof bg.__wbg_set_wasm).toBe("function");
    const bytes = readFileSync(join(dirname(bgPath), "schema_engine_bg.wasm"));
    const module = await WebAssembly.compile(bytes);
    const exports = WebAssembly.Module.exports(module).map((e) => e.name);
    expect(exports).toContain("__wbindgen_start");
    // Every import of the wasm comes from the bg module under the name the migrator uses.
    const imports = WebAssembly.Module.imports(module);
    expect(new Set(imports.map((i) => i.module))).toEqual(new Set(["./schema_engine_bg.js"]));
    for (const { name } of imports) expect(bg[name], name).toBeTypeOf("function");
  });

  it("SchemaEngine.new(options, log, adapter) and the methods applyMigrations, diff, free", async () => {
    const bg = (await import(require.resolve("@prisma/schema-engine-wasm/schema_engine_bg"))) as {
      SchemaEngine: { new: (...args: unknown[]) => unknown; prototype: Record<string, unknown> };
    };
    expect(bg.SchemaEngine.new).toBeTypeOf("function");
    expect(bg.SchemaEngine.new.length).toBe(3);
    for (const method of ["applyMigrations", "diff", "free"]) expect(bg.SchemaEngine.prototype[method], method).toBeTypeOf("function");
  });
});

describe("what the statement cache uses of @prisma/adapter-better-sqlite3", () => {
  const dir = mkdtempSync(join(tmpdir(), "mediahost-internals-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("finds the connection as `client` and serves the adapter's queries from the cache", async () => {
    const adapter = await createAdapter({ provider: "sqlite", url: join(dir, "t.db") }).connect();
    try {
      const client = sqliteClientOf(adapter);
      expect(client).not.toBeNull();
      // Installed: `prepare` hands out the cache's statements (bind and run only).
      expect(Reflect.get(client!.prepare("SELECT 1"), "all")).toBeUndefined();
      // The adapter's reads and writes go through them: it uses no other statement method.
      await adapter.executeScript("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)");
      const changed = await adapter.executeRaw({ sql: "INSERT INTO t (id, name) VALUES (?, ?)", args: [1, "one"], argTypes: [INT, TEXT] });
      expect(changed).toBe(1);
      const read = await adapter.queryRaw({ sql: "SELECT id, name FROM t WHERE id = ?", args: [1], argTypes: [INT] });
      expect(read.columnNames).toEqual(["id", "name"]);
      expect(read.rows).toEqual([[1, "one"]]);
    } finally {
      await adapter.dispose();
    }
  });
});

describe("the query compiler's WebAssembly, read as a file (lib/db/prisma-wasm.ts)", () => {
  it("both generated clients read it through prismaWasmBase64, and it finds the file", async () => {
    const { prismaWasmBase64 } = await import("@/lib/db/prisma-wasm");
    for (const [name, provider] of [
      ["sqlite", "sqlite"],
      ["postgres", "postgresql"],
    ] as const) {
      const file = `query_compiler_fast_bg.${provider}.wasm-base64.mjs`;
      const generated = readFileSync(join(root, "lib/db/generated", name, "internal/class.ts"), "utf8");
      expect(generated).toContain(`prismaWasmBase64("${file}")`);
      // Where prismaWasmBase64 looks (from the working directory), so that a miss says why.
      const runtime = dirname(createRequire(join(process.cwd(), "package.json")).resolve("@prisma/client/runtime/client"));
      expect(readFileSync(join(runtime, file), "utf8")).toContain("const wasm = ");
      const base64 = await prismaWasmBase64(file);
      // A WebAssembly module: "\0asm" version 1, and the very bytes the module would export.
      expect(Buffer.from(base64 ?? "", "base64").subarray(0, 8)).toEqual(Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
      const imported = (await import(`@prisma/client/runtime/${file}`)) as { wasm: string };
      expect(base64).toBe(imported.wasm);
    }
  });
});
