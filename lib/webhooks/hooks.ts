/** Managing webhooks (docs/webhooks.md); another user's webhook is 404 `not_found`. */
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { notifyJobs } from "@/lib/jobs";
import { parseWebhookUrl, resolveWebhookTarget } from "./address-guard";
import { webhookSettings } from "./config";
import { WEBHOOK_EVENTS, type DeliveryRecord, type WebhookEventType, type WebhookFormat, type WebhookRecord } from "@/lib/types/webhook";
import { enqueueDelivery, newEventId, PING_EVENT } from "./events";
import { webhookBody } from "./payloads";
import { newWebhookSecret } from "./signature";

export const MAX_WEBHOOKS_PER_USER = 10;

export interface WebhookInput {
  url: string;
  events: readonly WebhookEventType[];
  format: WebhookFormat;
  appId?: string | null;
}

const select = {
  id: true,
  url: true,
  appId: true,
  app: { select: { name: true } },
  events: true,
  format: true,
  enabled: true,
  failureCount: true,
  disabledAt: true,
  disabledReason: true,
  lastDeliveryAt: true,
  createdAt: true,
} as const;

type Row = {
  id: string;
  url: string;
  appId: string | null;
  app: { name: string } | null;
  events: string;
  format: string;
  enabled: boolean;
  failureCount: number;
  disabledAt: Date | null;
  disabledReason: string | null;
  lastDeliveryAt: Date | null;
  createdAt: Date;
};

function toRecord(row: Row): WebhookRecord {
  const { app, ...rest } = row;
  return {
    ...rest,
    appName: app?.name ?? null,
    events: row.events.split(",").filter((e): e is WebhookEventType => (WEBHOOK_EVENTS as readonly string[]).includes(e)),
    format: row.format === "discord" ? "discord" : "generic",
  };
}

const notFound = () => new DomainError("not_found", "No such webhook.");

/** Checked again at every attempt. */
async function checkUrl(url: string): Promise<string> {
  parseWebhookUrl(url);
  try {
    await resolveWebhookTarget(url, webhookSettings());
  } catch (error) {
    if (error instanceof DomainError) throw new DomainError("invalid_request", error.message);
    throw error;
  }
  return url;
}

const eventList = (events: readonly WebhookEventType[]) => [...new Set(events)].join(",");

export async function createWebhook(userId: string, input: WebhookInput): Promise<WebhookRecord> {
  const url = await checkUrl(input.url);
  if (input.appId) {
    const app = await db().app.findFirst({ where: { id: input.appId, userId }, select: { id: true } });
    if (!app) throw new DomainError("not_found", "No such app.");
  }
  if ((await db().webhook.count({ where: { userId } })) >= MAX_WEBHOOKS_PER_USER) {
    throw new DomainError("forbidden", `An account has at most ${MAX_WEBHOOKS_PER_USER} webhooks.`);
  }
  const secret = newWebhookSecret();
  const row = await db().webhook.create({
    data: { userId, appId: input.appId ?? null, url, secret, events: eventList(input.events), format: input.format },
    select,
  });
  return { ...toRecord(row), secret };
}

export async function listWebhooks(userId: string): Promise<WebhookRecord[]> {
  const rows = await db().webhook.findMany({ where: { userId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], select });
  return rows.map(toRecord);
}

export async function getWebhook(userId: string, id: string): Promise<WebhookRecord> {
  const row = await db().webhook.findFirst({ where: { id, userId }, select });
  if (!row) throw notFound();
  return toRecord(row);
}

export interface WebhookChange {
  url?: string;
  events?: readonly WebhookEventType[];
  format?: WebhookFormat;
  /** true re-enables a disabled webhook (failure count back to 0); false pauses it. */
  enabled?: boolean;
}

export async function updateWebhook(userId: string, id: string, change: WebhookChange): Promise<WebhookRecord> {
  const current = await getWebhook(userId, id);
  const url = change.url !== undefined && change.url !== current.url ? await checkUrl(change.url) : undefined;
  const enable = change.enabled === true && !current.enabled;
  const pause = change.enabled === false && current.enabled;
  await db().webhook.updateMany({
    where: { id, userId },
    data: {
      ...(url ? { url } : {}),
      ...(change.events ? { events: eventList(change.events) } : {}),
      ...(change.format ? { format: change.format } : {}),
      ...(enable ? { enabled: true, failureCount: 0, disabledAt: null, disabledReason: null } : {}),
      ...(pause ? { enabled: false, disabledAt: new Date(), disabledReason: "Paused by the owner." } : {}),
    },
  });
  return getWebhook(userId, id);
}

export async function deleteWebhook(userId: string, id: string): Promise<void> {
  const { count } = await db().webhook.deleteMany({ where: { id, userId } });
  if (!count) throw notFound();
}

export async function listDeliveries(userId: string, id: string, limit = 50): Promise<DeliveryRecord[]> {
  await getWebhook(userId, id);
  return db().webhookDelivery.findMany({
    where: { webhookId: id },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    select: {
      id: true,
      eventId: true,
      event: true,
      attempt: true,
      status: true,
      ok: true,
      response: true,
      error: true,
      durationMs: true,
      createdAt: true,
    },
  });
}

/** Queues a `ping` event (one attempt, not counted against the webhook); returns its event id. */
export async function sendTestPing(userId: string, id: string): Promise<string> {
  const hook = await getWebhook(userId, id);
  const eventId = newEventId();
  const body = webhookBody(hook.format, {
    id: eventId,
    type: PING_EVENT,
    createdAt: new Date().toISOString(),
    data: { message: "This is a test delivery from Mediahost." },
  });
  const jobId = await enqueueDelivery(hook.id, hook.format, eventId, PING_EVENT, body, 1);
  await notifyJobs([jobId]);
  return eventId;
}
