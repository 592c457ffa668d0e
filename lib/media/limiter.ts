/**
 * Admission control for media work: MEDIA_CONCURRENCY slots and a queue bounded by waiting
 * bytes and time, not count, since a waiting job costs disk, not memory (docs/media.md,
 * "Limits": a count of 8 refused 105-363 of a 200-screenshot burst, and uploaders do not retry
 * a 503). A slot is held per job (AsyncLocalStorage): nested steps reuse it, so a job keeps its
 * place between steps and cannot deadlock itself at concurrency 1.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { stat } from "node:fs/promises";
import { DomainError } from "@/lib/errors";
import { setGaugeSource } from "@/lib/metrics/registry";
import { mediaConfig } from "./config";

export type Release = () => void;
export type LimiterStats = {
  active: number;
  waiting: number;
  waitingBytes: number;
  concurrency: number;
  /** Count bound of the queue; null when only bytes and time bound it. */
  queueMax: number | null;
  queueBytes: number;
  queueWaitMs: number;
};

export interface LimiterOptions {
  concurrency: number;
  queueMax?: number | null;
  /** Total input bytes of the waiting jobs at most (a first waiter is always let in). */
  queueBytes?: number;
  queueWaitMs?: number;
}

/** What a job waits with: its input file (sized only if it has to wait), a buffer, or a byte count. */
export type JobInput = string | Buffer | number;

export interface AcquireOptions {
  signal?: AbortSignal;
  input?: JobInput;
}

type Waiter = { bytes: number; grant: (release: Release) => void };

export const BUSY_RETRY_AFTER_SECONDS = 5;

const busy = (why: string): DomainError =>
  new DomainError("unavailable", `Media processing is at capacity (${why}); retry later.`, undefined, undefined, BUSY_RETRY_AFTER_SECONDS);

export class MediaLimiter {
  private active = 0;
  private waitingBytes = 0;
  private readonly waiting: Waiter[] = [];
  readonly concurrency: number;
  readonly queueMax: number | null;
  readonly queueBytes: number;
  readonly queueWaitMs: number;

  constructor(options: LimiterOptions) {
    const { concurrency, queueMax = null, queueBytes = Number.MAX_SAFE_INTEGER, queueWaitMs = 0 } = options;
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error("concurrency must be >= 1");
    if (queueMax !== null && (!Number.isInteger(queueMax) || queueMax < 0)) throw new Error("queueMax must be >= 0");
    if (!Number.isInteger(queueBytes) || queueBytes < 0) throw new Error("queueBytes must be >= 0");
    if (!Number.isInteger(queueWaitMs) || queueWaitMs < 0) throw new Error("queueWaitMs must be >= 0 (0: no time bound)");
    this.concurrency = concurrency;
    this.queueMax = queueMax;
    this.queueBytes = queueBytes;
    this.queueWaitMs = queueWaitMs;
  }

  stats(): LimiterStats {
    return {
      active: this.active,
      waiting: this.waiting.length,
      waitingBytes: this.waitingBytes,
      concurrency: this.concurrency,
      queueMax: this.queueMax,
      queueBytes: this.queueBytes,
      queueWaitMs: this.queueWaitMs,
    };
  }

  /** Rejects with `unavailable` at once when the queue is full, or once the job has waited `queueWaitMs`. */
  acquire(options: AcquireOptions = {}): Promise<Release> {
    const { signal, input } = options;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.active < this.concurrency) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    // A file is sized only now: a job that gets a slot straight away costs no stat.
    if (typeof input === "string") return fileSize(input).then((bytes) => this.wait(bytes, signal));
    return this.wait(typeof input === "number" ? input : (input?.length ?? 0), signal);
  }

  private wait(bytes: number, signal: AbortSignal | undefined): Promise<Release> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.active < this.concurrency) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    if (this.queueMax !== null && this.waiting.length >= this.queueMax) return Promise.reject(busy("queue full"));
    // The first waiter always gets in, whatever its size: otherwise a file larger than the
    // bound could never be processed while anything runs.
    if (this.waiting.length > 0 && this.waitingBytes + bytes > this.queueBytes) return Promise.reject(busy("queued bytes"));
    return new Promise<Release>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const leave = (): void => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) {
          this.waiting.splice(i, 1);
          this.waitingBytes -= waiter.bytes;
        }
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      const onAbort = (): void => {
        leave();
        reject(abortReason(signal!));
      };
      const waiter: Waiter = {
        bytes,
        grant: (release) => {
          leave();
          resolve(release);
        },
      };
      if (this.queueWaitMs > 0) {
        timer = setTimeout(() => {
          leave();
          reject(busy("waited too long"));
        }, this.queueWaitMs);
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
      this.waitingBytes += bytes;
    });
  }

  async run<T>(fn: () => Promise<T>, options: AcquireOptions = {}): Promise<T> {
    const release = await this.acquire(options);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting[0];
      // Hand the slot straight to the next waiter: `active` stays the same.
      if (next) next.grant(this.releaser());
      else this.active--;
    };
  }
}

async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    // The job will report its own error about the file; it waits as a small one.
    return 0;
  }
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

let shared: MediaLimiter | undefined;
export function mediaLimiter(): MediaLimiter {
  if (!shared) {
    const { concurrency, queueMax, queueBytes, queueWaitMs } = mediaConfig();
    shared = new MediaLimiter({ concurrency, queueMax, queueBytes, queueWaitMs });
  }
  return shared;
}
// GET /metrics reads the shared limiter's state at scrape time (docs/metrics.md).
setGaugeSource("media_queue_waiting", () => mediaLimiter().stats().waiting);
setGaugeSource("media_queue_running", () => mediaLimiter().stats().active);
setGaugeSource("media_queue_waiting_bytes", () => mediaLimiter().stats().waitingBytes);

/** Tests only: forget the shared limiter so the next job re-reads the settings. */
export function resetMediaLimiter(): void {
  shared = undefined;
}

const slotContext = new AsyncLocalStorage<true>();

export function holdsMediaSlot(): boolean {
  return slotContext.getStore() === true;
}

/** One media job: waits for a slot; `input` counts against MEDIA_QUEUE_BYTES while it waits. Re-entrant. */
export async function withMediaSlot<T>(fn: () => Promise<T>, opts: AcquireOptions = {}): Promise<T> {
  if (holdsMediaSlot()) return fn();
  return mediaLimiter().run(() => slotContext.run(true, fn), opts);
}
