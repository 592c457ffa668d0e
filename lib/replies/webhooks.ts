/**
 * The webhook and delivery objects (docs/webhooks.md, "API") with the views that build them
 * from the records of lib/webhooks/hooks.ts (their shapes: lib/types/webhook.ts).
 */
import { z } from "zod";
import { type DeliveryRecord, WEBHOOK_EVENTS, WEBHOOK_FORMATS, type WebhookRecord } from "@/lib/types/webhook";

/** Also the request's event names and format (lib/routes/webhooks.ts): one enum each, one component each. */
export const WebhookEventType = z
  .enum(WEBHOOK_EVENTS)
  .meta({ id: "WebhookEvent", description: "upload, post.deleted, post.moderated, comment.received or folder.guest_upload" });
export const WebhookFormat = z
  .enum(WEBHOOK_FORMATS)
  .meta({ id: "WebhookFormat", description: "generic: signed JSON envelope; discord: a Discord execute-webhook body" });

export const Webhook = z
  .object({
    id: z.string(),
    url: z.string(),
    app_id: z.string().nullable().describe("Only events of posts uploaded with this app's key; null: every post of the account"),
    app_name: z.string().nullable(),
    events: z.array(WebhookEventType),
    format: WebhookFormat,
    enabled: z.boolean(),
    failure_count: z.number().int().describe("Events in a row whose every attempt failed"),
    disabled_at: z.string().nullable(),
    disabled_reason: z.string().nullable().describe("Why the webhook is off (repeated failures, or paused)"),
    last_delivery_at: z.string().nullable(),
    created_at: z.string(),
    secret: z.string().optional().describe("The signing secret; only in the reply of POST /webhooks"),
  })
  .meta({ id: "Webhook" });

export const WebhookDelivery = z
  .object({
    id: z.string(),
    event_id: z.string().describe("The webhook-id header; the same on every attempt of one event"),
    event: z.string(),
    attempt: z.number().int(),
    status: z.number().int().nullable().describe("The receiver's HTTP status; null when none came"),
    ok: z.boolean(),
    response: z.string().nullable().describe("The first 1024 bytes of the response body"),
    error: z.string().nullable(),
    duration_ms: z.number().int(),
    created_at: z.string(),
  })
  .meta({ id: "WebhookDelivery" });

export const WebhookReply = z.object({ webhook: Webhook });
export const WebhookList = z.object({ webhooks: z.array(Webhook) });
export const DeliveryList = z.object({ deliveries: z.array(WebhookDelivery) });
export const TestPingReply = z.object({ event_id: z.string(), queued: z.literal(true) });

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function webhookView(w: WebhookRecord): z.infer<typeof Webhook> {
  return {
    id: w.id,
    url: w.url,
    app_id: w.appId,
    app_name: w.appName,
    events: w.events,
    format: w.format,
    enabled: w.enabled,
    failure_count: w.failureCount,
    disabled_at: iso(w.disabledAt),
    disabled_reason: w.disabledReason,
    last_delivery_at: iso(w.lastDeliveryAt),
    created_at: w.createdAt.toISOString(),
    ...(w.secret ? { secret: w.secret } : {}),
  };
}

export function deliveryView(d: DeliveryRecord): z.infer<typeof WebhookDelivery> {
  return {
    id: d.id,
    event_id: d.eventId,
    event: d.event,
    attempt: d.attempt,
    status: d.status,
    ok: d.ok,
    response: d.response,
    error: d.error,
    duration_ms: d.durationMs,
    created_at: d.createdAt.toISOString(),
  };
}
