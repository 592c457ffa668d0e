/**
 * A webhook's names and records as plain data (docs/webhooks.md): the feature (lib/webhooks)
 * makes them and its presenter (lib/replies/webhooks.ts) shows them, without either
 * importing the other (the feature's payloads use the post presenter).
 */
export const WEBHOOK_EVENTS = ["upload", "post.deleted", "post.moderated", "comment.received"] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

export const WEBHOOK_FORMATS = ["generic", "discord"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

export interface WebhookRecord {
  id: string;
  url: string;
  appId: string | null;
  appName: string | null;
  events: WebhookEventType[];
  format: WebhookFormat;
  enabled: boolean;
  failureCount: number;
  disabledAt: Date | null;
  disabledReason: string | null;
  lastDeliveryAt: Date | null;
  createdAt: Date;
  /** Only in the result of createWebhook. */
  secret?: string;
}

export interface DeliveryRecord {
  id: string;
  eventId: string;
  event: string;
  attempt: number;
  status: number | null;
  ok: boolean;
  response: string | null;
  error: string | null;
  durationMs: number;
  createdAt: Date;
}
