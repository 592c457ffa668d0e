/**
 * The job worker (docs/priority-delivery.md): one job at a time by default (one ffmpeg on a
 * 2-core machine), the lease renewed while it runs; on stop the running job is aborted and
 * given back. Woken by `wake()`, a poll of the table (JOB_POLL_MS) and BullMQ messages.
 */
import { isDependencyUnavailable } from "@/lib/faults/classify";
import { recordJob } from "@/lib/metrics/registry";
import { claimJob, completeJob, DEFAULT_LEASE_MS, failJob, newWorkerId, releaseJob, renewLease, type JobRow, type JobState } from "./queue";

export interface JobContext {
  job: JobRow;
  signal: AbortSignal;
}

export interface JobHandler {
  run(payload: unknown, ctx: JobContext): Promise<void>;
  /** Once, when the job fails for good. */
  onFailed?(payload: unknown, error: unknown): Promise<void>;
  retryDelayMs?(failedAttempts: number): number;
}

export class PermanentJobError extends Error {
  override name = "PermanentJobError";
}

export interface WorkerOptions {
  handlers: Readonly<Record<string, JobHandler>>;
  concurrency?: number;
  pollMs?: number;
  leaseMs?: number;
  log?: (message: string) => void;
}

export class JobWorker {
  readonly id = newWorkerId();
  private running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private stopped = true;
  private timer: NodeJS.Timeout | undefined;
  private pumping = false;
  private again = false;
  private readonly kinds: string[];
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly log: (message: string) => void;

  constructor(private readonly opts: WorkerOptions) {
    this.kinds = Object.keys(opts.handlers);
    this.concurrency = opts.concurrency ?? 1;
    this.pollMs = opts.pollMs ?? 2000;
    this.leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
    this.log = opts.log ?? ((m) => console.error(`[jobs] ${m}`));
  }

  get active(): number {
    return this.running.size;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.wake();
  }

  wake(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    void this.pump();
  }

  /** Runs one job when it is claimable (BullMQ hands us its id). */
  async runById(jobId: string): Promise<void> {
    if (this.stopped || this.running.size >= this.concurrency) return;
    const job = await claimJob(this.id, this.kinds, this.leaseMs, jobId);
    if (job) await this.launch(job);
  }

  /** The cron endpoint's one pass (docs/deploy.md): due jobs until none is left or `budgetMs` has passed. */
  async drain(budgetMs: number): Promise<number> {
    const end = Date.now() + budgetMs;
    let ran = 0;
    while (Date.now() < end) {
      const job = await claimJob(this.id, this.kinds, this.leaseMs);
      if (!job) break;
      // `stopped` stays true: the wake() after each job does not start the poll loop.
      await this.launch(job);
      ran++;
    }
    return ran;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const r of this.running.values()) r.abort.abort();
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    clearTimeout(this.timer);
    try {
      do {
        this.again = false;
        while (!this.stopped && this.running.size < this.concurrency) {
          const job = await claimJob(this.id, this.kinds, this.leaseMs).catch((error: unknown) => {
            // The database away is logged once per outage (docs/faults.md), not once per poll.
            if (!isDependencyUnavailable(error)) this.log(`claim failed: ${String(error)}`);
            return null;
          });
          if (!job) break;
          if (this.stopped) {
            // Stopped while the claim was in flight: give it straight back.
            await releaseJob(job.id, this.id).catch(() => undefined);
            break;
          }
          void this.launch(job);
        }
      } while (this.again && !this.stopped);
    } finally {
      this.pumping = false;
      if (!this.stopped) this.timer = setTimeout(() => this.wake(), this.pollMs);
    }
  }

  private launch(job: JobRow): Promise<void> {
    const abort = new AbortController();
    const done = this.execute(job, abort).finally(() => {
      this.running.delete(job.id);
      this.wake();
    });
    this.running.set(job.id, { abort, done });
    return done;
  }

  private async execute(job: JobRow, abort: AbortController): Promise<void> {
    const handler = this.opts.handlers[job.kind];
    const heartbeat = setInterval(
      () => {
        renewLease(job.id, this.id, this.leaseMs)
          .then((held) => held || abort.abort())
          .catch(() => undefined);
      },
      Math.max(50, Math.floor(this.leaseMs / 3)),
    );
    let payload: unknown;
    const started = performance.now();
    try {
      payload = JSON.parse(job.payload);
      await handler.run(payload, { job, signal: abort.signal });
      clearInterval(heartbeat);
      await completeJob(job.id, this.id);
      recordJob(job.kind, "done", (performance.now() - started) / 1000);
    } catch (error) {
      clearInterval(heartbeat);
      if (this.stopped) {
        // Not the job's fault: the next start runs it again with the attempt not counted.
        await releaseJob(job.id, this.id).catch(() => undefined);
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      let state: JobState | null = null;
      try {
        state = await failJob(job, this.id, message, error instanceof PermanentJobError, handler.retryDelayMs?.(job.attempts));
      } catch (dbError) {
        this.log(`could not record the failure of job ${job.id}: ${String(dbError)}`);
      }
      recordJob(job.kind, state === "failed" ? "failed" : "retried", (performance.now() - started) / 1000);
      this.log(
        `job ${job.kind} ${job.id} attempt ${job.attempts}/${job.maxAttempts} failed: ${message}${state === "failed" ? " (giving up)" : ""}`,
      );
      if (state === "failed" && handler.onFailed) {
        await handler.onFailed(payload, error).catch((e: unknown) => this.log(`onFailed of job ${job.id}: ${String(e)}`));
      }
    }
  }
}
