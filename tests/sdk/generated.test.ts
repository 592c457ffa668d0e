/**
 * The SDK's generated types are current (docs/sdk.md, "Regenerating"): a fresh run of
 * `npm run sdk:generate`, in memory, gives the committed files byte for byte. A route
 * added or changed without regenerating fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { surfaceDocument } from "@/lib/routes/openapi-documents";
import { GENERATED_FILES, generateAllSdkTypes, typesFromDocument } from "@/scripts/sdk-types";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("sdk/src/generated", () => {
  it("matches a fresh generation from the route table (run `npm run sdk:generate` when this fails)", async () => {
    const fresh = await generateAllSdkTypes();
    expect(Object.keys(fresh).sort()).toEqual(Object.values(GENERATED_FILES).sort());
    for (const [path, text] of Object.entries(fresh)) {
      expect(readFileSync(join(root, path), "utf8"), path).toBe(text);
    }
  }, 60_000);

  it("the comparison sees a change of the table: a document with one endpoint less gives other types", async () => {
    const document = surfaceDocument("api", "/api") as { paths: Record<string, unknown> };
    const { "/gifs": removed, ...paths } = document.paths;
    expect(removed).toBeDefined();
    const stale = await typesFromDocument({ ...document, paths }, "api");
    expect(stale).not.toBe(readFileSync(join(root, GENERATED_FILES.api), "utf8"));
    expect(stale).not.toContain('"/gifs"');
  }, 60_000);

  it("is deterministic: two runs give the same bytes", async () => {
    expect(await generateAllSdkTypes()).toEqual(await generateAllSdkTypes());
  }, 60_000);
});
