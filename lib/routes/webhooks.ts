/** Handlers of the webhooks area (docs/webhooks.md, "API"); team keys get 401. */
import { z } from "zod";
import { requireRecentConfirmation } from "@/lib/auth/confirmation";
import type { RouteContext } from "@/lib/http/route";
import { deliveryView, WebhookEventType, WebhookFormat, webhookView } from "@/lib/replies/webhooks";
import type { PersonalPrincipal } from "@/lib/types/principal";
import { WEBHOOK_EVENTS } from "@/lib/types/webhook";
import { createWebhook, deleteWebhook, getWebhook, listDeliveries, listWebhooks, sendTestPing, updateWebhook } from "@/lib/webhooks/hooks";
import type { idParam } from "./params";

const url = z.string().trim().min(1).max(2000);
const events = z
  .array(WebhookEventType)
  .min(1, "Choose at least one event.")
  .max(WEBHOOK_EVENTS.length * 2);
export const createWebhookBody = z.object({
  url,
  events,
  format: WebhookFormat.default("generic"),
  app_id: z.string().min(1).max(64).nullable().optional(),
});
export const updateWebhookBody = z
  .object({ url: url.optional(), events: events.optional(), format: WebhookFormat.optional(), enabled: z.boolean().optional() })
  .refine((b) => Object.keys(b).length > 0, "Send at least one of url, events, format, enabled.");
export const deliveriesQuery = z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) });

type ById = { params: typeof idParam };
const me = (principal: PersonalPrincipal) => principal.user.id;

/**
 * A new destination needs a recent confirmation (docs/security.md): a stolen session must not leave
 * a channel that outlives it. App keys cannot confirm; one with gallery access keeps this right.
 */
async function newDestinationAllowed(principal: PersonalPrincipal): Promise<void> {
  if (principal.kind === "session") await requireRecentConfirmation(principal.user.id, principal.sessionId);
}

export async function handleListWebhooks({ principal }: RouteContext) {
  return { webhooks: (await listWebhooks(me(principal))).map(webhookView) };
}

export async function handleCreateWebhook({ principal, body }: RouteContext<{ body: typeof createWebhookBody }>) {
  await newDestinationAllowed(principal);
  const created = await createWebhook(me(principal), {
    url: body.url,
    events: body.events,
    format: body.format,
    appId: body.app_id ?? null,
  });
  return { webhook: webhookView(created) };
}

export async function handleGetWebhook({ principal, params }: RouteContext<ById>) {
  return { webhook: webhookView(await getWebhook(me(principal), params.id)) };
}

export async function handleUpdateWebhook({ principal, params, body }: RouteContext<ById & { body: typeof updateWebhookBody }>) {
  if (body.url !== undefined) await newDestinationAllowed(principal);
  return { webhook: webhookView(await updateWebhook(me(principal), params.id, body)) };
}

export async function handleDeleteWebhook({ principal, params }: RouteContext<ById>) {
  await deleteWebhook(me(principal), params.id);
  return { id: params.id, deleted: true as const };
}

export async function handleListWebhookDeliveries({ principal, params, query }: RouteContext<ById & { query: typeof deliveriesQuery }>) {
  return { deliveries: (await listDeliveries(me(principal), params.id, query.limit)).map(deliveryView) };
}

export async function handleTestWebhook({ principal, params }: RouteContext<ById>) {
  return { event_id: await sendTestPing(me(principal), params.id), queued: true as const };
}
