/**
 * The counters layer behind rate limits, the upload burst safeguard and view
 * de-duplication. Two implementations: memory (one process) and Redis (shared by every
 * instance). Callers build keys (see buckets.ts) and turn results into headers.
 *
 * Window rule (both stores): a fixed window per key that starts at the key's first hit
 * and lasts `windowSeconds`; the next hit after it ends starts a fresh window. Chosen
 * over epoch-aligned windows because (a) the store knows the exact end of every window
 * (it is the key's expiry), so `X-RateLimit-Reset` and `Retry-After` are exact, and
 * (b) a client cannot double its rate by straddling a shared boundary at :00/:30.
 * Denied hits are not counted and never move the window's end, so a client hammering a
 * 429 gets its budget back at the `Retry-After` it was told.
 */

export interface WindowResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** unix seconds when the window resets */
  resetAt: number;
  /** seconds to wait, >= 1, only meaningful when !allowed */
  retryAfter: number;
}

export interface CounterStore {
  /** Count one hit on `key` in a fixed window of `windowSeconds`, allowing `limit` per window. */
  hit(key: string, limit: number, windowSeconds: number): Promise<WindowResult>;
  /**
   * `hit` without waiting, for stores that keep their counters in this process. Absent on
   * stores that must ask a server (Redis): callers then use `hit`.
   */
  hitNow?(key: string, limit: number, windowSeconds: number): WindowResult;
  /** Fixed-window counter without a verdict (view de-duplication). Returns the count after incrementing. */
  increment(key: string, windowSeconds: number): Promise<number>;
  /**
   * Sliding-window counter: records a hit now and returns the hits of the last
   * `windowSeconds`, this one included (the memory store stops at 256: a verdict such as
   * "more than 8" needs no more). For the upload burst safeguard ("more than 8 uploads
   * within one second"), where a fixed window would miss a burst that straddles its end.
   */
  countRecent(key: string, windowSeconds: number): Promise<number>;
  /** Give back one hit (e.g. an upload that was rejected before doing work should not count) — optional semantics, decrement if > 0. */
  release(key: string, windowSeconds: number): Promise<void>;
  close(): Promise<void>;
}

/** Window length in whole milliseconds; at least 1 ms so a key always expires. */
export function windowMs(windowSeconds: number): number {
  return Math.max(1, Math.round(windowSeconds * 1000));
}

/**
 * The one place where a store's raw state becomes a WindowResult, so both stores round
 * the same way. `count` is the number of admitted hits in the window, `endsAtMs` the
 * window's end (unix ms). Rounding is upward: at `resetAt` (and `Retry-After` seconds
 * from now) the window is over for certain, never a few milliseconds early.
 */
export function toWindowResult(allowed: boolean, limit: number, count: number, endsAtMs: number, nowMs: number): WindowResult {
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - count),
    resetAt: Math.ceil(endsAtMs / 1000),
    retryAfter: Math.max(1, Math.ceil((endsAtMs - nowMs) / 1000)),
  };
}
