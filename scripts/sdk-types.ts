/**
 * The SDK's generated types (sdk/src/generated/*.d.ts): openapi-typescript over the OpenAPI
 * document of each surface, built offline from the route table by the same function the
 * server uses for `GET /openapi.json` (lib/routes/openapi-documents.ts). Deterministic: the
 * same table gives the same bytes, so tests/sdk/generated.test.ts can compare the committed
 * files with a fresh run (docs/sdk.md, "Regenerating").
 */
import openapiTS, { astToString } from "openapi-typescript";
import type { Surface } from "../lib/http/route";
import { surfaceDocument } from "../lib/routes/openapi-documents";

/** Where each surface's types live, relative to the repository root. */
export const GENERATED_FILES: Record<Surface, string> = {
  api: "sdk/src/generated/api.d.ts",
  relay: "sdk/src/generated/relay.d.ts",
};

/**
 * Server URL written into the documents: relative, because the types do not depend on it
 * and a deployment's own URL (PUBLIC_URL / API_URL) must not leak into committed files.
 */
const SERVER_PATH: Record<Surface, string> = { api: "/api", relay: "/relay" };

const HEADER = (surface: Surface) =>
  [
    "/**",
    ` * Types of the ${surface === "api" ? "API" : "Relay"} surface, generated from the route table by`,
    " * `npm run sdk:generate` (scripts/sdk-generate.ts). Do not edit: tests/sdk/generated.test.ts",
    " * fails when this file differs from a fresh run.",
    " */",
    "",
  ].join("\n");

export async function generateSdkTypes(surface: Surface): Promise<string> {
  return typesFromDocument(surfaceDocument(surface, SERVER_PATH[surface]), surface);
}

/** The generated file for one OpenAPI document (also used on the served documents in tests). */
export async function typesFromDocument(document: Record<string, unknown>, surface: Surface): Promise<string> {
  // openapi-typescript's own types for the document are stricter than our JSON; it validates
  // the document itself (redocly) and throws on an invalid one.
  const ast = await openapiTS(document as unknown as Parameters<typeof openapiTS>[0], {
    alphabetize: true,
    silent: true,
  });
  return HEADER(surface) + astToString(ast);
}

/** Every generated file: path (from the repository root) → contents. */
export async function generateAllSdkTypes(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const surface of Object.keys(GENERATED_FILES) as Surface[]) out[GENERATED_FILES[surface]] = await generateSdkTypes(surface);
  return out;
}
