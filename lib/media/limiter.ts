/**
 * Process-wide admission control for media work. A fixed number of slots (MEDIA_CONCURRENCY)
 * and a bounded wait queue (MEDIA_QUEUE_MAX): when the queue is full a new job is refused at
 * once with `unavailable` (503, clients retry with backoff) instead of piling up memory,
 * CPU and open request sockets behind a backlog that cannot drain in time.
 *
 * A slot is held per *job*: `withMediaSlot` marks the async context (AsyncLocalStorage), and
 * nested calls inside it (processVideo's probe → ffmpeg → thumbnail steps, each of which
 * also calls withMediaSlot) reuse the held slot. That keeps a job from losing its place
 * between steps and rules out self-deadlock when concurrency is 1.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { DomainError } from "../errors";
import { mediaConfig } from "./config";

export type Release = () => void;
export type LimiterStats = { active: number; waiting: number; concurrency: number; queueMax: number };

type Waiter = { grant: (release: Release) => void };

/** Seconds suggested in Retry-After when the queue is full. */
export const BUSY_RETRY_AFTER_SECONDS = 5;

export class MediaLimiter {
  private active = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    readonly concurrency: number,
    readonly queueMax: number,
  ) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error("concurrency must be >= 1");
    if (!Number.isInteger(queueMax) || queueMax < 0) throw new Error("queueMax must be >= 0");
  }

  stats(): LimiterStats {
    return { active: this.active, waiting: this.waiting.length, concurrency: this.concurrency, queueMax: this.queueMax };
  }

  /** Resolves with a release function once a slot is free; rejects at once when the queue is full. */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.active < this.concurrency) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.length >= this.queueMax) {
      return Promise.reject(
        new DomainError(
          "unavailable",
          "Media processing is at capacity; retry later.",
          undefined,
          undefined,
          BUSY_RETRY_AFTER_SECONDS,
        ),
      );
    }
    return new Promise<Release>((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(abortReason(signal!));
      };
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(release);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
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
      const next = this.waiting.shift();
      // Hand the slot straight to the next waiter: `active` stays the same.
      if (next) next.grant(this.releaser());
      else this.active--;
    };
  }
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

let shared: MediaLimiter | undefined;
/** The limiter shared by every media job in this process (sized from the environment). */
export function mediaLimiter(): MediaLimiter {
  if (!shared) {
    const { concurrency, queueMax } = mediaConfig();
    shared = new MediaLimiter(concurrency, queueMax);
  }
  return shared;
}
/** Tests only: forget the shared limiter so the next job re-reads the settings. */
export function resetMediaLimiter(): void {
  shared = undefined;
}

const slotContext = new AsyncLocalStorage<true>();

/** True inside withMediaSlot: the current job already holds a slot. */
export function holdsMediaSlot(): boolean {
  return slotContext.getStore() === true;
}

/**
 * Runs `fn` as one media job: waits for a slot (or fails with `unavailable` when the queue
 * is full, or with the signal's reason when aborted while waiting). Re-entrant.
 */
export async function withMediaSlot<T>(fn: () => Promise<T>, opts: { signal?: AbortSignal } = {}): Promise<T> {
  if (holdsMediaSlot()) return fn();
  return mediaLimiter().run(() => slotContext.run(true, fn), opts.signal);
}
