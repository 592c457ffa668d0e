/**
 * The OpenAPI document of each surface, from the route table. Served at
 * `GET /{api,relay}/openapi.json` (lib/routes/index.ts) and read offline by
 * `npm run sdk:generate` (scripts/sdk-types.ts), so the served documents and the SDK's
 * generated types come from one function.
 */
import { openApiDocument } from "@/lib/http/openapi";
import type { Surface } from "@/lib/http/route";
import { ErrorBody } from "@/lib/presenters/shared";
import { ROUTES } from "./table";

export function surfaceDocument(surface: Surface, serverUrl: string): Record<string, unknown> {
  return openApiDocument(ROUTES, surface, serverUrl, [ErrorBody]);
}
