/**
 * Fixed places for an endpoint's parts (issue 31 §3; docs/architecture.md, "One place per
 * kind"), checked over the real route table and the source text:
 * - its declaration in lib/routes/table/<area>.ts, which builds no schema and defines no function;
 * - its handler, `handle<RouteId>`, exported from lib/routes/<area>.ts (the same area);
 * - its request schemas exported from that file or, when areas share them, lib/routes/params.ts;
 * - its reply schema exported from lib/presenters/ (or, for a feature's own records, lib/replies/),
 *   where the views that fill it live too.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RouteDef } from "@/lib/http/route";
import { ROUTES } from "@/lib/routes/table";

const root = join(import.meta.dirname, "../..");
const tsFiles = (dir: string) =>
  readdirSync(join(root, dir))
    .filter((name) => name.endsWith(".ts"))
    .map((name) => name.slice(0, -3));
const source = (path: string) => readFileSync(join(root, path), "utf8");
type Module = Record<string, unknown>;
const load = async (path: string): Promise<Module> => (await import(join(root, path))) as Module;

/** lib/routes/table/: one file per area, besides the list (index.ts) and the shared constants. */
const TABLE_HELPERS = ["index", "shared"];
/**
 * lib/routes/: besides one handler file per area, the surfaces' entry, shared request pieces, the
 * CDN lane, the share target (an entry outside the table that hands its file to the dispatcher)
 * and the upload headers.
 */
const ROUTE_HELPERS = ["index", "openapi-documents", "params", "cdn", "share-target", "upload-headers"];

const areas = tsFiles("lib/routes/table").filter((name) => !TABLE_HELPERS.includes(name));
const isRoute = (value: unknown): value is RouteDef =>
  typeof value === "object" && value !== null && "id" in value && "method" in value && "handler" in value;

/** Each area's routes: what its table file exports. */
const declared = new Map<string, RouteDef[]>();
for (const area of areas) {
  const table = await load(`lib/routes/table/${area}.ts`);
  declared.set(
    area,
    Object.values(table).flatMap((value) => (Array.isArray(value) ? value.filter(isRoute) : [])),
  );
}
const handlerFiles = new Map<string, Module>();
// A missing handler file is reported by the tests below, not as a failed import.
for (const area of areas)
  handlerFiles.set(area, existsSync(join(root, `lib/routes/${area}.ts`)) ? await load(`lib/routes/${area}.ts`) : {});
const presenterExports = new Set<unknown>();
for (const dir of ["lib/presenters", "lib/replies"])
  for (const name of tsFiles(dir)) for (const value of Object.values(await load(`${dir}/${name}.ts`))) presenterExports.add(value);
const sharedRequest = new Set(Object.values(await load("lib/routes/params.ts")));

const handlerName = (id: string) => `handle${id[0].toUpperCase()}${id.slice(1)}`;
const routesOf = (area: string) => declared.get(area) ?? [];

describe("route places", () => {
  it("declares every route of the table in exactly one area file", () => {
    const all = areas.flatMap(routesOf);
    expect(all.length).toBe(ROUTES.length);
    expect(new Set(all)).toEqual(new Set(ROUTES));
  });

  it("has one handler file per table area, and no other handler file", () => {
    const handlerAreas = tsFiles("lib/routes").filter((name) => !ROUTE_HELPERS.includes(name));
    expect(handlerAreas.sort()).toEqual([...areas].sort());
  });

  it("gives every route the handler handle<RouteId>, exported from lib/routes/<area>.ts", () => {
    const misplaced = areas.flatMap((area) =>
      routesOf(area)
        .filter(
          (route) => route.handler.name !== handlerName(route.id) || handlerFiles.get(area)?.[handlerName(route.id)] !== route.handler,
        )
        .map((route) => `${area}: ${route.id} (handler ${route.handler.name || "anonymous"})`),
    );
    expect(misplaced).toEqual([]);
  });

  it("exports no handler that its area's table does not declare", () => {
    const orphans = areas.flatMap((area) => {
      const used = new Set(routesOf(area).map((route) => handlerName(route.id)));
      return Object.keys(handlerFiles.get(area) ?? {})
        .filter((name) => /^handle[A-Z]/.test(name) && !used.has(name))
        .map((name) => `lib/routes/${area}.ts: ${name}`);
    });
    expect(orphans).toEqual([]);
  });

  it("keeps the table files to declarations: no schema built, no function defined", () => {
    const offending = tsFiles("lib/routes/table").flatMap((name) => {
      const text = source(`lib/routes/table/${name}.ts`).replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
      const found = [
        /from "zod"/.test(text) && "imports zod",
        /\bz\.\w+\(/.test(text) && "builds a zod schema",
        /=>/.test(text) && "defines an arrow function",
        /\bfunction\b/.test(text) && "defines a function",
      ].filter(Boolean);
      return found.map((what) => `lib/routes/table/${name}.ts ${what}`);
    });
    expect(offending).toEqual([]);
  });

  it("takes every reply schema from lib/presenters/ or lib/replies/", () => {
    const elsewhere = ROUTES.filter(
      (route) => route.response && !("binary" in route.response) && !presenterExports.has(route.response),
    ).map((route) => route.id);
    expect(elsewhere).toEqual([]);
  });

  it("takes every request schema from its area's handler file or lib/routes/params.ts", () => {
    const elsewhere = areas.flatMap((area) => {
      const own = new Set(Object.values(handlerFiles.get(area) ?? {}));
      return routesOf(area).flatMap((route) =>
        (["params", "query", "body"] as const)
          .filter((part) => route[part] !== undefined && !own.has(route[part]) && !sharedRequest.has(route[part]))
          .map((part) => `${route.id}.${part}`),
      );
    });
    expect(elsewhere).toEqual([]);
  });

  it("defines no presenter in lib/routes/: no views, no reply components, no dates formatted", () => {
    const offending = tsFiles("lib/routes").flatMap((name) => {
      const text = source(`lib/routes/${name}.ts`);
      const found = [
        /(function|const)\s+\w+(View|Json)\b/.test(text) && "defines a view",
        /\.meta\(\{\s*id:/.test(text) && "names an OpenAPI component",
        /\.toISOString\(/.test(text) && "formats a date",
      ].filter(Boolean);
      return found.map((what) => `lib/routes/${name}.ts ${what}`);
    });
    expect(offending).toEqual([]);
  });
});
