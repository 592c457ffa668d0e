/** The two surfaces: their dispatchers and OpenAPI documents, all from one table. */
import { z } from "zod";
import { env } from "@/lib/config/env";
import { createDispatcher, type Dispatcher } from "@/lib/http/dispatch";
import { defineRoute, type RouteDef, type Surface } from "@/lib/http/route";
import { surfaceDocument } from "./openapi-documents";
import { ROUTES } from "./table";
import { listenForPostEvents } from "@/lib/webhooks/post-events";

const serverUrl = (surface: Surface) => (surface === "api" ? env().apiUrl : env().relayUrl);

const documents = new Map<Surface, Record<string, unknown>>();

/** GET /openapi.json on each surface: generated once per process. */
const openapiRoute = defineRoute({
  id: "openapi",
  method: "GET",
  path: "/openapi.json",
  surfaces: ["api", "relay"],
  summary: "This document",
  auth: "none",
  hidden: true,
  database: false,
  response: z.record(z.string(), z.unknown()),
  async handler({ surface }) {
    let doc = documents.get(surface);
    if (!doc) {
      doc = surfaceDocument(surface, serverUrl(surface));
      documents.set(surface, doc);
    }
    return doc;
  },
});

export const ALL_ROUTES: readonly RouteDef[] = [...ROUTES, openapiRoute];

const holder = globalThis as unknown as { __mediahostDispatchers?: Record<Surface, Dispatcher> };

export function dispatcher(surface: Surface): Dispatcher {
  // Wherever requests are served, post events reach the webhooks (lib/posts/events.ts).
  listenForPostEvents();
  holder.__mediahostDispatchers ??= {
    api: createDispatcher(ALL_ROUTES, "api", "/api"),
    relay: createDispatcher(ALL_ROUTES, "relay", "/relay"),
  };
  return holder.__mediahostDispatchers[surface];
}
