/**
 * The dashboard's one upload queue (docs/bulk-actions.md): every dropped, pasted or chosen
 * file waits here and is sent by at most `parallel` workers. Built so that a drop of many
 * files never fails on our own limits:
 * - 429 `rate_limited` and 503 `unavailable` put the file back at the head of the queue
 *   and pause the whole queue for `Retry-After` (the limit is per account: the other files
 *   would be refused too). `Retry-After` is when the window has room again
 *   (docs/rate-limits.md, "Windows").
 * - Request starts are paced to `startsPerSecond` in any second: more than 8 uploads in
 *   one second suspends the account (docs/rate-limits.md, "Other counters").
 * No React in here: the hook in upload.ts renders what `onChange` reports.
 */

export type SendResult = { ok: true; body: unknown } | { ok: false; message: string; status: number; retryAfterSeconds: number | null };

export interface QueueTask {
  id: number;
  file: File;
}

export type TaskChange =
  | { state: "uploading" }
  | { state: "progress"; loaded: number; total: number }
  | { state: "retrying"; message: string }
  | { state: "done"; body: unknown }
  | { state: "failed"; message: string };

export interface UploadQueueOptions {
  parallel: number;
  startsPerSecond: number;
  /** Sends of one file, retries included, before its last refusal is final. */
  maxAttempts: number;
  send(task: QueueTask, onProgress: (loaded: number, total: number) => void): Promise<SendResult>;
  onChange(id: number, change: TaskChange): void;
  /** The queue is paused until this time (ms since the epoch), or null when it runs again. */
  onPause(until: number | null): void;
  /** Every queued file has finished (done or failed). */
  onIdle(): void;
}

/** Statuses worth a retry after a wait: the limiter's and the media queue's (docs/rate-limits.md, "Windows"; docs/media.md, "Limits"). */
const RETRYABLE = new Set([429, 503]);
/** Without a Retry-After header: back off 2, 4, 8 ... up to 30 seconds. */
const backoffSeconds = (attempt: number) => Math.min(30, 2 ** attempt);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class UploadQueue {
  private readonly pending: { task: QueueTask; attempts: number }[] = [];
  private active = 0;
  private pausedUntil = 0;
  /** Start times of the last second's requests. */
  private starts: number[] = [];

  constructor(private readonly options: UploadQueueOptions) {}

  add(tasks: QueueTask[]): void {
    this.pending.push(...tasks.map((task) => ({ task, attempts: 0 })));
    while (this.active < this.options.parallel && this.pending.length > 0) {
      this.active++;
      void this.work();
    }
  }

  private async work(): Promise<void> {
    for (let next = this.pending.shift(); next; next = this.pending.shift()) {
      await this.turn();
      const { task } = next;
      next.attempts++;
      this.options.onChange(task.id, { state: "uploading" });
      const result = await this.options.send(task, (loaded, total) => this.options.onChange(task.id, { state: "progress", loaded, total }));
      if (result.ok) {
        this.options.onChange(task.id, { state: "done", body: result.body });
      } else if (RETRYABLE.has(result.status) && next.attempts < this.options.maxAttempts) {
        const wait = result.retryAfterSeconds ?? backoffSeconds(next.attempts);
        this.pausedUntil = Math.max(this.pausedUntil, Date.now() + wait * 1000);
        this.options.onPause(this.pausedUntil);
        this.options.onChange(task.id, { state: "retrying", message: result.message });
        // Back to the head: files keep their order, and this one goes first when the wait ends.
        this.pending.unshift(next);
      } else {
        this.options.onChange(task.id, { state: "failed", message: result.message });
      }
    }
    this.active--;
    if (this.active === 0 && this.pending.length === 0) this.options.onIdle();
  }

  /** Waits out a pause and the start pacing; then records this start. */
  private async turn(): Promise<void> {
    for (;;) {
      const now = Date.now();
      if (now < this.pausedUntil) {
        await sleep(this.pausedUntil - now);
        continue;
      }
      if (this.pausedUntil) {
        this.pausedUntil = 0;
        this.options.onPause(null);
      }
      this.starts = this.starts.filter((t) => now - t < 1000);
      if (this.starts.length >= this.options.startsPerSecond) {
        await sleep(1000 - (now - this.starts[0]) + 1);
        continue;
      }
      this.starts.push(now);
      return;
    }
  }
}
