/** The OpenAPI documents describe the webhook endpoints and their schemas (docs/webhooks.md, "API"). */
import { describe, expect, it } from "vitest";
import { api, relay } from "../support/http";

describe("webhooks in the OpenAPI documents", () => {
  it.each([
    ["api", api],
    ["relay", relay],
  ] as const)("%s: every webhook operation, with the Webhook and WebhookDelivery schemas", async (_surface, call) => {
    const doc = (await call("/openapi.json")).body as {
      paths: Record<string, Record<string, { operationId: string; "x-rate-limit"?: unknown }>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    const ops = Object.values(doc.paths).flatMap((p) => Object.values(p).map((o) => o.operationId));
    for (const id of [
      "listWebhooks",
      "createWebhook",
      "getWebhook",
      "updateWebhook",
      "deleteWebhook",
      "listWebhookDeliveries",
      "testWebhook",
    ]) {
      expect(ops).toContain(id);
    }
    expect(Object.keys(doc.paths["/webhooks/{id}"]).sort()).toEqual(["delete", "get", "patch"]);
    expect(Object.keys(doc.components.schemas.Webhook.properties ?? {})).toEqual(
      expect.arrayContaining(["url", "events", "format", "enabled", "failure_count", "disabled_reason", "secret", "app_id"]),
    );
    expect(Object.keys(doc.components.schemas.WebhookDelivery.properties ?? {})).toEqual(
      expect.arrayContaining(["event_id", "attempt", "status", "response", "error", "duration_ms"]),
    );
  });
});
