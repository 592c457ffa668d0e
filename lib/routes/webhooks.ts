/**
 * The webhook endpoints (docs/webhooks.md, "API"): schemas, views and handlers over
 * lib/webhooks/hooks.ts. Personal keys only (app keys with gallery access, Relay
 * sessions, the dashboard's session); team keys get 401 like elsewhere.
 */
import { z } from "zod";
import type { PersonalPrincipal } from "../types/principal";
import { defineRoute } from "../http/route";
import { WEBHOOK_EVENTS } from "../webhooks/events";
import { WEBHOOK_FORMATS } from "../webhooks/payloads";
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  sendTestPing,
  updateWebhook,
  type DeliveryRecord,
  type WebhookRecord,
} from "../webhooks/hooks";
import { idParam } from "./params";

const BOTH = ["api", "relay"] as const;

const EventType = z
  .enum(WEBHOOK_EVENTS)
  .meta({ id: "WebhookEvent", description: "upload, post.deleted, post.moderated or comment.received" });
const Format = z
  .enum(WEBHOOK_FORMATS)
  .meta({ id: "WebhookFormat", description: "generic: signed JSON envelope; discord: a Discord execute-webhook body" });

export const Webhook = z
  .object({
    id: z.string(),
    url: z.string(),
    app_id: z.string().nullable().describe("Only events of posts uploaded with this app's key; null: every post of the account"),
    app_name: z.string().nullable(),
    events: z.array(EventType),
    format: Format,
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

const url = z.string().trim().min(1).max(2000);
const events = z
  .array(EventType)
  .min(1, "Choose at least one event.")
  .max(WEBHOOK_EVENTS.length * 2);
export const createWebhookBody = z.object({
  url,
  events,
  format: Format.default("generic"),
  app_id: z.string().min(1).max(64).nullable().optional(),
});
export const updateWebhookBody = z
  .object({ url: url.optional(), events: events.optional(), format: Format.optional(), enabled: z.boolean().optional() })
  .refine((b) => Object.keys(b).length > 0, "Send at least one of url, events, format, enabled.");
const deliveriesQuery = z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) });

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function webhookView(w: WebhookRecord): z.infer<typeof Webhook> {
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

function deliveryView(d: DeliveryRecord): z.infer<typeof WebhookDelivery> {
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

const me = (principal: PersonalPrincipal) => principal.user.id;
const webhookReply = z.object({ webhook: Webhook });

export const webhookRoutes = [
  defineRoute({
    id: "listWebhooks",
    method: "GET",
    path: "/webhooks",
    surfaces: BOTH,
    summary: "The account's webhooks",
    galleryAccess: true,
    rateLimit: "webhooks_read",
    response: z.object({ webhooks: z.array(Webhook) }),
    handler: async ({ principal }) => ({ webhooks: (await listWebhooks(me(principal))).map(webhookView) }),
  }),
  defineRoute({
    id: "createWebhook",
    method: "POST",
    path: "/webhooks",
    surfaces: BOTH,
    summary: "Add a webhook; the reply holds its signing secret, shown only here",
    galleryAccess: true,
    rateLimit: "webhooks_write",
    body: createWebhookBody,
    response: webhookReply,
    handler: async ({ principal, body }) => ({
      webhook: webhookView(
        await createWebhook(me(principal), { url: body.url, events: body.events, format: body.format, appId: body.app_id ?? null }),
      ),
    }),
  }),
  defineRoute({
    id: "getWebhook",
    method: "GET",
    path: "/webhooks/{id}",
    surfaces: BOTH,
    summary: "One webhook",
    galleryAccess: true,
    rateLimit: "webhooks_read",
    params: idParam,
    response: webhookReply,
    handler: async ({ principal, params }) => ({ webhook: webhookView(await getWebhook(me(principal), params.id)) }),
  }),
  defineRoute({
    id: "updateWebhook",
    method: "PATCH",
    path: "/webhooks/{id}",
    surfaces: BOTH,
    summary: "Change a webhook; `enabled: true` re-enables one disabled after failures",
    galleryAccess: true,
    rateLimit: "webhooks_write",
    params: idParam,
    body: updateWebhookBody,
    response: webhookReply,
    handler: async ({ principal, params, body }) => ({ webhook: webhookView(await updateWebhook(me(principal), params.id, body)) }),
  }),
  defineRoute({
    id: "deleteWebhook",
    method: "DELETE",
    path: "/webhooks/{id}",
    surfaces: BOTH,
    summary: "Remove a webhook and its delivery log",
    galleryAccess: true,
    rateLimit: "webhooks_write",
    params: idParam,
    response: z.object({ id: z.string(), deleted: z.literal(true) }),
    handler: async ({ principal, params }) => {
      await deleteWebhook(me(principal), params.id);
      return { id: params.id, deleted: true as const };
    },
  }),
  defineRoute({
    id: "listWebhookDeliveries",
    method: "GET",
    path: "/webhooks/{id}/deliveries",
    surfaces: BOTH,
    summary: "The webhook's delivery log: the latest attempts, newest first",
    galleryAccess: true,
    rateLimit: "webhooks_read",
    params: idParam,
    query: deliveriesQuery,
    response: z.object({ deliveries: z.array(WebhookDelivery) }),
    handler: async ({ principal, params, query }) => ({
      deliveries: (await listDeliveries(me(principal), params.id, query.limit)).map(deliveryView),
    }),
  }),
  defineRoute({
    id: "testWebhook",
    method: "POST",
    path: "/webhooks/{id}/test",
    surfaces: BOTH,
    summary: "Send a `ping` event now (one attempt; also to a disabled webhook)",
    galleryAccess: true,
    rateLimit: "webhooks_test",
    params: idParam,
    response: z.object({ event_id: z.string(), queued: z.literal(true) }),
    handler: async ({ principal, params }) => ({ event_id: await sendTestPing(me(principal), params.id), queued: true as const }),
  }),
];
