/**
 * The route index (issue 43 §1; docs/architecture.md, "Route index"): `npm run -s routes`
 * lists every entry point, read from the source text, and the doc's copy is what it prints.
 * Held against the real route table, so a route the parser misreads fails here.
 */
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ALL_ROUTES } from "@/lib/routes";
import { documentedIndex, otherEntryPoints, pages, routeIndex, tableRoutes } from "../../scripts/routes.mjs";

type TableRoute = {
  id: string;
  method: string;
  path: string;
  surfaces: string[];
  handler: string;
  handlerFile: string;
  verbs: { name: string; file: string }[];
  presenter: { name: string; file: string }[];
};
type Entry = { url: string; files: string[] };

const root = join(import.meta.dirname, "../..");
const table = (tableRoutes as () => TableRoute[])();

function filesUnder(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) filesUnder(path, out);
    else out.push(path);
  }
  return out;
}

describe("route index", () => {
  it("the doc's copy is what npm run -s routes prints (renew it with npm run -s routes -- --write)", () => {
    expect((documentedIndex as () => string | null)()).toBe((routeIndex as () => string)());
  });

  it("reads every route of the table as the service declares it: id, method, path, surfaces, handler", () => {
    const read = table.map((r) => [r.id, r.method, r.path, r.surfaces.join(" "), r.handler === "(inline)" ? "handler" : r.handler]);
    const declared = ALL_ROUTES.map((r) => [r.id, r.method, r.path, r.surfaces.join(" "), r.handler.name]);
    // Grouped by table file in the index, so compared in one order.
    const byId = (a: string[], b: string[]) => a[0].localeCompare(b[0]);
    expect(read.sort(byId)).toEqual(declared.sort(byId));
  });

  it("names a domain verb for every table route that has one, and a presenter for every JSON reply", () => {
    // The OpenAPI document is built, not read from a domain; tus replies are headers, as is the
    // guest upload page's plain form (a 303 back to the page: docs/guest-uploads.md).
    const noVerb = table.filter((r) => r.verbs.length === 0).map((r) => r.id);
    expect(noVerb).toEqual(["openapi"]);
    const noPresenter = table.filter((r) => r.presenter.length === 0).map((r) => r.id);
    expect(
      noPresenter.filter((id) => !["exportAccount", "convert", "openapi", "guestUploadForm"].includes(id) && !id.startsWith("tus")),
    ).toEqual([]);
  });

  it("lists every route handler and page under app/", () => {
    const app = filesUnder("app").map((f) => relative(root, join(root, f)));
    const listed = new Set([...(otherEntryPoints as () => Entry[])(), ...(pages as () => Entry[])()].map((e) => e.files[0]));
    const entries = app.filter((f) => f.endsWith("/route.ts") || f.endsWith("/page.tsx") || f === "app/manifest.ts");
    expect(entries.filter((f) => !listed.has(f))).toEqual([]);
    expect(entries.length).toBeGreaterThan(30);
  });
});
