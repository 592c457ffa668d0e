/** The "webhook" job: one event to one webhook, signed afresh per attempt, retried with backoff (docs/webhooks.md). */
import { z } from "zod";
import { db } from "@/lib/db/client";
import { isDomainError } from "@/lib/errors";
import { registerJobHandler } from "@/lib/jobs";
import { PermanentJobError, type JobHandler } from "@/lib/jobs/worker";
import { resolveWebhookTarget } from "./address-guard";
import { webhookSettings } from "./config";
import { sendWebhook } from "./send";
import { signPayload } from "./signature";

export const WEBHOOK_JOB = "webhook";

const Payload = z.object({
  webhookId: z.string().min(1),
  eventId: z.string().min(1),
  event: z.string().min(1),
  format: z.string(),
  body: z.string(),
});
export type DeliveryPayload = z.infer<typeof Payload>;

const PING = "ping";

/** Delay before attempt n+1 after n failed attempts: base × 4^(n-1), at most an hour. */
export const webhookRetryDelayMs = (failedAttempts: number): number =>
  Math.min(3_600_000, webhookSettings().retryBaseMs * 4 ** Math.max(0, failedAttempts - 1));

interface LogEntry {
  status: number | null;
  ok: boolean;
  response: string | null;
  error: string | null;
  durationMs: number;
}

async function record(payload: DeliveryPayload, attempt: number, entry: LogEntry): Promise<void> {
  await db().webhookDelivery.create({
    data: { webhookId: payload.webhookId, eventId: payload.eventId, event: payload.event, attempt, ...entry },
  });
  // Keep the newest WEBHOOK_LOG_KEEP attempts of this webhook.
  const old = await db().webhookDelivery.findMany({
    where: { webhookId: payload.webhookId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    skip: webhookSettings().logKeep,
    select: { id: true },
  });
  if (old.length) await db().webhookDelivery.deleteMany({ where: { id: { in: old.map((o) => o.id) } } });
}

export const webhookJobHandler: JobHandler = {
  retryDelayMs: webhookRetryDelayMs,

  async run(raw, { job, signal }) {
    const payload = Payload.parse(raw);
    const hook = await db().webhook.findUnique({ where: { id: payload.webhookId }, select: { url: true, secret: true, enabled: true } });
    // Deleted since, or disabled (events queued before are dropped; a test ping still goes).
    if (!hook || (!hook.enabled && payload.event !== PING)) return;
    const settings = webhookSettings();
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let target;
    try {
      target = await resolveWebhookTarget(hook.url, settings);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await record(payload, job.attempts, { status: null, ok: false, response: null, error: message, durationMs: elapsed() });
      // A refused address stays refused; an unresolvable host may come back.
      if (isDomainError(error) && error.type === "forbidden") throw new PermanentJobError(message);
      throw error;
    }
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      "webhook-id": payload.eventId,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signPayload(hook.secret, timestamp, payload.body),
      "webhook-event": payload.event,
    };
    let result;
    try {
      result = await sendWebhook(target, headers, payload.body, settings.timeoutMs, signal);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await record(payload, job.attempts, { status: null, ok: false, response: null, error: message.slice(0, 500), durationMs: elapsed() });
      throw error;
    }
    const ok = result.status >= 200 && result.status < 300;
    await record(payload, job.attempts, {
      status: result.status,
      ok,
      response: result.snippet || null,
      error: ok ? null : result.status >= 300 && result.status < 400 ? "Redirects are not followed." : null,
      durationMs: elapsed(),
    });
    if (!ok) throw new Error(`The receiver answered ${result.status}.`);
    await db().webhook.update({
      where: { id: payload.webhookId },
      data: { lastDeliveryAt: new Date(), ...(payload.event === PING ? {} : { failureCount: 0 }) },
    });
  },

  async onFailed(raw) {
    const payload = Payload.parse(raw);
    // A test ping says nothing about the receiver's health over time.
    if (payload.event === PING) return;
    const limit = webhookSettings().disableAfter;
    const { count } = await db().webhook.updateMany({ where: { id: payload.webhookId }, data: { failureCount: { increment: 1 } } });
    if (!count) return;
    await db().webhook.updateMany({
      where: { id: payload.webhookId, enabled: true, failureCount: { gte: limit } },
      data: {
        enabled: false,
        disabledAt: new Date(),
        disabledReason: `Disabled after ${limit} event${limit === 1 ? "" : "s"} in a row failed every attempt. Fix the receiver, then enable the webhook again.`,
      },
    });
  },
};

const DELIVERY_POOL = { name: "webhooks", concurrency: 4 };

export function registerWebhookJobs(): void {
  registerJobHandler(WEBHOOK_JOB, webhookJobHandler, DELIVERY_POOL);
}
