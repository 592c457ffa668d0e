/** The OpenAPI documents are generated from the route table and describe every endpoint. */
import { describe, expect, it } from "vitest";
import { ALL_ROUTES } from "@/lib/routes";
import { useTestDatabase } from "../support/db";
import { api, relay } from "../support/http";

useTestDatabase();

function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refs(n, out));
  else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

describe.each([
  ["api", api],
  ["relay", relay],
] as const)("/%s/openapi.json", (surface, get) => {
  it("is an OpenAPI 3.1 document of every endpoint of the surface, with resolvable refs", async () => {
    const reply = await get("/openapi.json");
    expect(reply.status).toBe(200);
    const doc = reply.body;
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers[0].url).toMatch(surface === "api" ? /\/api$/ : /\/relay$/);
    expect(doc.components.securitySchemes.key.name).toBe(surface === "api" ? "api-key" : "relay-key");
    for (const route of ALL_ROUTES.filter((r) => r.surfaces.includes(surface) && !r.hidden)) {
      const op = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      expect(op.operationId).toBe(route.id);
    }
    for (const ref of refs(doc)) {
      const name = ref.replace("#/components/schemas/", "");
      expect(doc.components.schemas[name], ref).toBeDefined();
    }
    expect(doc.components.schemas.Post.properties.files).toBeDefined();
    expect(doc.components.schemas.Error).toBeDefined();
  });
});
