/**
 * The process's background jobs: `startJobWorkers()` when the server starts,
 * `stopJobWorkers()` when it stops, `notifyJobs()` after enqueuing. Kept on globalThis
 * because the server (tsx) and the Next.js bundles load their own copies of this module,
 * and an enqueue in a route handler must wake the one worker of the process.
 */
import { env } from "../config/env";
import { openBullTransport, type BullTransport } from "./bull";
import { hlsJobHandler, HLS_JOB } from "./hls-job";
import { setGaugeSource } from "../metrics/registry";
import { countJobsByState } from "./queue";
import { JobWorker, type JobHandler } from "./worker";
import { webhookJobHandler, WEBHOOK_JOB } from "../webhooks/delivery-job";
import { OCR_BACKFILL_JOB, OCR_JOB, ocrBackfillHandler, ocrJobHandler, startOcrBackfill } from "./ocr-job";
import { ocrActive, ocrConfig } from "../media/tesseract";

import { recoverDeadJobs } from "./queue";

export { enqueueJob } from "./queue";

export interface StartOptions {
  /** Default JOB_POLL_MS or 2 s (15 s when Redis carries the wake-ups). */
  pollMs?: number;
  leaseMs?: number;
  /** Use BullMQ on this Redis URL; default REDIS_URL. Empty string: in-process only. */
  redisUrl?: string;
  /** Start the backfill of images without text (docs/ocr.md); default true. */
  backfill?: boolean;
}

interface Jobs {
  worker?: JobWorker;
  /** Webhook deliveries run beside media jobs, so a long transcode never holds them up. */
  webhookWorker?: JobWorker;
  /** Reading text in images (docs/ocr.md): its own few slots, so a backlog never holds up a video's HLS. */
  ocrWorker?: JobWorker;
  transport?: BullTransport;
  publisher?: BullTransport;
}

const holder = globalThis as unknown as { __mediahostJobs?: Jobs };
const jobs = (): Jobs => (holder.__mediahostJobs ??= {});

const OCR_HANDLERS: Readonly<Record<string, JobHandler>> = { [OCR_JOB]: ocrJobHandler, [OCR_BACKFILL_JOB]: ocrBackfillHandler };
export const JOB_HANDLERS: Readonly<Record<string, JobHandler>> = {
  [HLS_JOB]: hlsJobHandler,
  [WEBHOOK_JOB]: webhookJobHandler,
  ...OCR_HANDLERS,
};
/** Webhook deliveries at once (each mostly waits on a remote server). */
const WEBHOOK_CONCURRENCY = 4;

/** Starts this process's worker (idempotent). Jobs left by an earlier run are picked up at once. */
export function startJobWorkers(opts: StartOptions = {}): JobWorker {
  const state = jobs();
  if (state.worker) return state.worker;
  const redisUrl = opts.redisUrl ?? env().REDIS_URL ?? "";
  const pollMs = opts.pollMs ?? env().JOB_POLL_MS ?? (redisUrl ? 15_000 : 2000);
  const worker = new JobWorker({ handlers: { [HLS_JOB]: hlsJobHandler }, concurrency: 1, pollMs, leaseMs: opts.leaseMs });
  const webhookWorker = new JobWorker({
    handlers: { [WEBHOOK_JOB]: webhookJobHandler },
    concurrency: WEBHOOK_CONCURRENCY,
    pollMs,
    leaseMs: opts.leaseMs,
  });
  // Without Tesseract, or with OCR=off, no text job runs (and none is queued: lib/uploads/upload.ts).
  const ocrWorker = ocrActive()
    ? new JobWorker({ handlers: OCR_HANDLERS, concurrency: ocrConfig().concurrency, pollMs, leaseMs: opts.leaseMs })
    : undefined;
  state.worker = worker;
  state.webhookWorker = webhookWorker;
  state.ocrWorker = ocrWorker;
  setGaugeSource("jobs", countJobsByState);
  // A message names a row of any kind; each worker claims only its own kinds.
  if (redisUrl)
    state.transport = openBullTransport(
      redisUrl,
      async (id) => void (await Promise.all([worker.runById(id), webhookWorker.runById(id), ocrWorker?.runById(id)])),
    );
  worker.start();
  webhookWorker.start();
  ocrWorker?.start();
  // Images stored before reading was on (or while it was off) are read in the background.
  if (ocrWorker && opts.backfill !== false)
    void startOcrBackfill()
      .then((id) => notifyJobs(id ? [id] : []))
      .catch((e: unknown) => console.error(`[jobs] could not start the text backfill: ${String(e)}`));
  return worker;
}

/** Stops the worker: the running job is aborted and queued again for the next start. */
export async function stopJobWorkers(): Promise<void> {
  const state = jobs();
  const { worker, webhookWorker, ocrWorker, transport, publisher } = state;
  state.worker = undefined;
  state.webhookWorker = undefined;
  state.ocrWorker = undefined;
  state.transport = undefined;
  state.publisher = undefined;
  await Promise.allSettled([worker?.stop(), webhookWorker?.stop(), ocrWorker?.stop(), transport?.close(), publisher?.close()]);
}

/** After jobs were enqueued (and committed): wakes the local worker, or every instance through Redis. */
export async function notifyJobs(jobIds: readonly string[]): Promise<void> {
  // Nothing new (an upload of images only): waking the worker would only poll the table.
  if (!jobIds.length) return;
  const state = jobs();
  state.worker?.wake();
  state.webhookWorker?.wake();
  state.ocrWorker?.wake();
  const redisUrl = env().REDIS_URL;
  if (!redisUrl) return;
  state.publisher ??= state.transport ?? openBullTransport(redisUrl);
  await Promise.all(jobIds.map((id) => state.publisher!.publish(id))).catch((e: unknown) => {
    // The row is queued either way; the next poll of the table finds it.
    console.error(`[jobs] could not publish to Redis: ${String(e)}`);
  });
}

/**
 * Jobs a dead worker left running (`isDead` of its worker id): requeued now, or failed for
 * good (with the handler's clean-up) when that was their last attempt. Run at start-up and
 * by the periodic recovery sweep (lib/recovery/recover.ts), before the lease would expire.
 */
export async function recoverJobs(isDead: (workerId: string) => boolean): Promise<{ requeued: number; failed: number }> {
  const { requeued, failed } = await recoverDeadJobs(isDead);
  for (const job of failed) {
    const handler = JOB_HANDLERS[job.kind];
    let payload: unknown;
    try {
      payload = JSON.parse(job.payload);
    } catch {
      continue;
    }
    await handler
      ?.onFailed?.(payload, new Error("worker stopped"))
      .catch((e: unknown) => console.error(`[jobs] onFailed of job ${job.id}: ${String(e)}`));
  }
  if (requeued.length) await notifyJobs(requeued.map((j) => j.id));
  return { requeued: requeued.length, failed: failed.length };
}
