/**
 * Webhook events (docs/webhooks.md, "Events"), emitted after the transaction committed. Emitting
 * never throws and never holds the request up: the work runs detached.
 */
import { randomBytes } from "node:crypto";
import { db } from "@/lib/db/client";
import { enqueueJob, notifyJobs } from "@/lib/jobs";
import { webhookSettings } from "./config";
import { WEBHOOK_JOB, type DeliveryPayload } from "./delivery-job";
import { webhookBody, type EventData } from "./payloads";
import type { WebhookEventType } from "@/lib/types/webhook";

export const PING_EVENT = "ping";

export interface WebhookEvent {
  type: WebhookEventType;
  userId: string;
  appId: string | null;
  data: EventData;
}

export const newEventId = (): string => `evt_${randomBytes(12).toString("hex")}`;

const pending = new Set<Promise<unknown>>();

export function emitWebhookEvent(event: WebhookEvent): void {
  trackWebhookWork(
    queueDeliveries(event).catch((error: unknown) => console.error(`[webhooks] could not queue ${event.type}: ${String(error)}`)),
  );
}

export function trackWebhookWork(work: Promise<unknown>): void {
  pending.add(work);
  void work.finally(() => pending.delete(work));
}

/** Waits for the events emitted so far to be queued: the admin CLI calls it before it exits. */
export async function settleWebhookEvents(): Promise<void> {
  while (pending.size) await Promise.allSettled([...pending]);
}

/** The same, awaited (tests, and callers that are background work already). Returns the job ids. */
export async function queueDeliveries(event: WebhookEvent): Promise<string[]> {
  const hooks = await db().webhook.findMany({
    where: { userId: event.userId, enabled: true, OR: [{ appId: null }, ...(event.appId ? [{ appId: event.appId }] : [])] },
    select: { id: true, events: true, format: true },
  });
  const matching = hooks.filter((h) => h.events.split(",").includes(event.type));
  if (!matching.length) return [];
  const eventId = newEventId();
  const createdAt = new Date().toISOString();
  const ids: string[] = [];
  for (const hook of matching) {
    ids.push(
      await enqueueDelivery(
        hook.id,
        hook.format,
        eventId,
        event.type,
        webhookBody(hook.format, { id: eventId, type: event.type, createdAt, data: event.data }),
      ),
    );
  }
  await notifyJobs(ids);
  return ids;
}

export async function enqueueDelivery(
  webhookId: string,
  format: string,
  eventId: string,
  type: string,
  body: string,
  attempts = webhookSettings().attempts,
): Promise<string> {
  const payload: DeliveryPayload = { webhookId, eventId, event: type, format, body };
  const job = await enqueueJob(WEBHOOK_JOB, payload, { maxAttempts: attempts });
  return job.id;
}
