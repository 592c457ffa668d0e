/** OpenAPI 3.1 documents generated from the route table, so they cannot drift from the code. */
import { z } from "zod";
import { ERROR_STATUS } from "@/lib/errors";
import { BUCKETS } from "@/lib/ratelimit/buckets";
import { KEY_HEADER, type RouteDef, type Surface } from "./route";

type JsonSchema = Record<string, unknown>;

/** `components` are schemas to include even if no route names them (the Error body). */
/** The API's version (`info.version`); the SDK package carries the same (sdk/package.json, scripts/sdk-build.ts). */
export const API_VERSION = "3.0.0";

export function openApiDocument(
  routes: readonly RouteDef[],
  surface: Surface,
  serverUrl: string,
  extraComponents: readonly z.ZodType[] = [],
): JsonSchema {
  const components: Record<string, JsonSchema> = {};
  const toSchema = (schema: z.ZodType, io: "input" | "output"): JsonSchema => {
    const generated = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" });
    // Schemas with meta({id}) come back under $defs; they are the document's components.
    const moved = JSON.parse(JSON.stringify(generated).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema & {
      $defs?: Record<string, JsonSchema>;
    };
    const { $defs, $schema, ...rest } = moved;
    void $schema;
    Object.assign(components, $defs ?? {});
    return rest;
  };

  for (const schema of extraComponents) toSchema(schema, "output");
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if (!route.surfaces.includes(surface) || route.hidden) continue;
    const parameters = parametersOf(route, toSchema);
    const op: JsonSchema = {
      operationId: route.id,
      summary: route.summary,
      ...(parameters.length ? { parameters } : {}),
      security: route.auth === "none" ? [] : route.auth === "optional" ? [{}, { key: [] }] : [{ key: [] }],
      responses: responses(route, toSchema),
    };
    const requestBody = requestBodyOf(route, toSchema);
    if (requestBody) op.requestBody = requestBody;
    const rule = typeof route.rateLimit === "string" ? BUCKETS[route.rateLimit] : undefined;
    if (rule) op["x-rate-limit"] = { limit: rule.limit, window_seconds: rule.windowSeconds, scope: rule.scope };
    const path = route.path;
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = op;
  }

  return {
    openapi: "3.1.0",
    info: {
      title: surface === "api" ? "Mediahost API" : "Mediahost Relay",
      version: API_VERSION,
      description: "Generated from the service's route table.",
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { key: { type: "apiKey", in: "header", name: KEY_HEADER[surface] } },
      schemas: components,
    },
    paths,
  };
}

type ToSchema = (s: z.ZodType, io: "input" | "output") => JsonSchema;

function parametersOf(route: RouteDef, toSchema: ToSchema): JsonSchema[] {
  const parameters: JsonSchema[] = [];
  for (const [where, schema] of [
    ["path", route.params],
    ["query", route.query],
  ] as const) {
    if (!schema) continue;
    const json = toSchema(schema, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, prop] of Object.entries(json.properties ?? {})) {
      parameters.push({ name, in: where, required: where === "path" || !!json.required?.includes(name), schema: prop });
    }
  }
  for (const [name, header] of Object.entries(route.headers ?? {})) {
    const schema = header.schema ? toSchema(header.schema, "input") : { type: "string" };
    parameters.push({ name, in: "header", required: header.required ?? false, description: header.description, schema });
  }
  return parameters;
}

function requestBodyOf(route: RouteDef, toSchema: ToSchema): JsonSchema | undefined {
  if (route.body) {
    return { required: false, content: { "application/json": { schema: toSchema(route.body, "input") } } };
  } else if (route.rawBody) {
    return { required: false, content: { [route.rawBody]: { schema: { type: "string", contentMediaType: route.rawBody } } } };
  } else if (route.multipart) {
    const files = Object.entries(route.multipart.fields).map(([name, description]): [string, JsonSchema] => [
      name,
      { type: "array", items: { type: "string", contentMediaType: "application/octet-stream" }, description },
    ]);
    const texts = Object.entries(route.multipart.textFields ?? {}).map(([name, description]): [string, JsonSchema] => [
      name,
      { type: "array", items: { type: "string", format: "uri" }, description },
    ]);
    const properties = Object.fromEntries([...files, ...texts]);
    return { required: true, content: { "multipart/form-data": { schema: { type: "object", properties } } } };
  }
  return undefined;
}

function responses(route: RouteDef, toSchema: (s: z.ZodType, io: "input" | "output") => JsonSchema): JsonSchema {
  const error = { description: "Error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
  const ok =
    route.response && "binary" in route.response
      ? {
          description: route.response.binary,
          // The media types the route names (a QR code: SVG or PNG), else any bytes.
          content: Object.fromEntries(
            (route.response.mediaTypes ?? ["application/octet-stream"]).map((type) => [
              type,
              { schema: { type: "string", contentMediaType: type } },
            ]),
          ),
        }
      : { description: "Success", content: { "application/json": { schema: route.response ? toSchema(route.response, "output") : {} } } };
  const codes: Record<string, unknown> = route.reply
    ? {
        [String(route.reply.status)]: {
          description: route.reply.description,
          headers: Object.fromEntries(
            Object.entries(route.reply.headers).map(([name, description]) => [name, { description, schema: { type: "string" } }]),
          ),
        },
      }
    : { "200": ok };
  const add = (status: number) => (codes[String(status)] = error);
  add(ERROR_STATUS.invalid_request);
  if (route.auth !== "none") add(ERROR_STATUS.unauthorized);
  add(ERROR_STATUS.forbidden);
  add(ERROR_STATUS.not_found);
  if (route.rateLimit) add(ERROR_STATUS.rate_limited);
  if (route.multipart || route.rawBody || route.reply) add(ERROR_STATUS.file_too_large);
  // tus's own statuses (docs/resumable-uploads.md): offset conflict, gone, version, media type.
  if (route.replyHeaders?.["tus-resumable"]) for (const status of [409, 410, 412, 415]) add(status);
  codes.default = error;
  return codes;
}
