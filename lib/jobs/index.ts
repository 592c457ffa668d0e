/**
 * The process's background jobs (docs/priority-delivery.md). Kept on globalThis: the server
 * and the Next.js bundles load their own copies of this module, and an enqueue in a route
 * handler must wake the one worker. Features above this layer register their kinds from above.
 */
import { markDown } from "@/lib/faults/outages";
import { env } from "@/lib/config/env";
import { openBullTransport, type BullTransport } from "./bull";
import { hlsJobHandler, HLS_JOB } from "./hls-job";
import { setGaugeSource } from "@/lib/metrics/registry";
import { countJobsByState } from "./queue";
import { JobWorker, type JobHandler } from "./worker";
import { recoverDeadJobs } from "./queue";
import { OCR_BACKFILL_JOB, OCR_JOB, ocrBackfillHandler, ocrJobHandler, startOcrBackfill } from "./ocr-job";
import { ocrActive, ocrConfig } from "@/lib/media/tesseract";

export { enqueueJob } from "./queue";

export interface StartOptions {
  pollMs?: number;
  leaseMs?: number;
  /** Default REDIS_URL; empty string: in-process only. */
  redisUrl?: string;
  backfill?: boolean;
}

/** Job kinds run by a worker of their own, so a long transcode never holds up webhook deliveries. */
export interface JobPool {
  name: string;
  concurrency: number;
}

/** HLS renditions: one at a time (each is a whole ffmpeg run). */
const MEDIA_POOL: JobPool = { name: "media", concurrency: 1 };

interface Jobs {
  kinds: Map<string, { handler: JobHandler; pool: JobPool }>;
  workers: JobWorker[];
  transport?: BullTransport;
  publisher?: BullTransport;
}

const holder = globalThis as unknown as { __mediahostJobs?: Jobs };
const jobs = (): Jobs =>
  (holder.__mediahostJobs ??= { kinds: new Map([[HLS_JOB, { handler: hlsJobHandler, pool: MEDIA_POOL }]]), workers: [] });

/** Call before `startJobWorkers` and `recoverJobs`, which look the handlers up; registering a kind again replaces it. */
export function registerJobHandler(kind: string, handler: JobHandler, pool: JobPool): void {
  jobs().kinds.set(kind, { handler, pool });
}

export function jobHandlers(): Readonly<Record<string, JobHandler>> {
  return Object.fromEntries([...jobs().kinds].map(([kind, { handler }]) => [kind, handler]));
}

function pools(): { pool: JobPool; handlers: Record<string, JobHandler> }[] {
  const byName = new Map<string, { pool: JobPool; handlers: Record<string, JobHandler> }>([
    [MEDIA_POOL.name, { pool: MEDIA_POOL, handlers: {} }],
  ]);
  for (const [kind, { handler, pool }] of jobs().kinds) {
    const group = byName.get(pool.name) ?? { pool, handlers: {} };
    group.handlers[kind] = handler;
    byName.set(pool.name, group);
  }
  return [...byName.values()];
}

/** Idempotent; returns the media pool's worker. Jobs left by an earlier run are picked up at once. */
export function startJobWorkers(opts: StartOptions = {}): JobWorker {
  const state = jobs();
  if (state.workers.length) return state.workers[0];
  const redisUrl = opts.redisUrl ?? env().REDIS_URL ?? "";
  const pollMs = opts.pollMs ?? env().JOB_POLL_MS ?? (redisUrl ? 15_000 : 2000);
  // OCR (docs/ocr.md) in a pool of its own, so a backlog of screenshots never holds up a video's HLS.
  const ocr = ocrActive();
  if (ocr) {
    const pool: JobPool = { name: "ocr", concurrency: ocrConfig().concurrency };
    registerJobHandler(OCR_JOB, ocrJobHandler, pool);
    registerJobHandler(OCR_BACKFILL_JOB, ocrBackfillHandler, pool);
  }
  const workers = pools().map(
    ({ pool, handlers }) => new JobWorker({ handlers, concurrency: pool.concurrency, pollMs, leaseMs: opts.leaseMs }),
  );
  state.workers = workers;
  setGaugeSource("jobs", countJobsByState);
  if (redisUrl) {
    state.transport = openBullTransport(redisUrl, async (id) => void (await Promise.all(workers.map((worker) => worker.runById(id)))));
  }
  for (const worker of workers) worker.start();
  if (ocr && opts.backfill !== false)
    void startOcrBackfill()
      .then((id) => notifyJobs(id ? [id] : []))
      .catch((e: unknown) => console.error(`[jobs] could not start the text backfill: ${String(e)}`));
  return workers[0];
}

/** One pass over each pool's due jobs for a process that runs no worker (the cron endpoint, docs/deploy.md). */
export async function runDueJobs(budgetMs: number): Promise<{ ran: number }> {
  const end = Date.now() + budgetMs;
  let ran = 0;
  for (const { handlers } of pools()) ran += await new JobWorker({ handlers }).drain(Math.max(0, end - Date.now()));
  return { ran };
}

/** The running job is aborted and queued again for the next start. */
export async function stopJobWorkers(): Promise<void> {
  const state = jobs();
  const { workers, transport, publisher } = state;
  state.workers = [];
  state.transport = undefined;
  state.publisher = undefined;
  await Promise.allSettled([...workers.map((worker) => worker.stop()), transport?.close(), publisher?.close()]);
}

/** After jobs were enqueued (and committed): wakes the local worker, or every instance through Redis. */
export async function notifyJobs(jobIds: readonly string[]): Promise<void> {
  if (!jobIds.length) return;
  const state = jobs();
  for (const worker of state.workers) worker.wake();
  const redisUrl = env().REDIS_URL;
  if (!redisUrl) return;
  state.publisher ??= state.transport ?? openBullTransport(redisUrl);
  await Promise.all(jobIds.map((id) => state.publisher!.publish(id))).catch((e: unknown) => {
    // The row is queued either way; the next poll of the table finds it. One log line per outage.
    markDown("redis", e);
  });
}

/** Jobs a dead worker left running: requeued, or failed for good on their last attempt (start-up and the recovery sweep). */
export async function recoverJobs(isDead: (workerId: string) => boolean): Promise<{ requeued: number; failed: number }> {
  const { requeued, failed } = await recoverDeadJobs(isDead);
  for (const job of failed) {
    const handler = jobs().kinds.get(job.kind)?.handler;
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
