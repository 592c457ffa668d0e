/**
 * The counters behind rate limits, the upload burst safeguard and view de-duplication, in
 * memory or Redis. A fixed window starts at a key's first hit (not epoch-aligned): its end
 * is the key's expiry, so `Retry-After` is exact, and no client doubles its rate across a
 * shared boundary. Denied hits are not counted and never move the window's end.
 */

export interface WindowResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds. */
  resetAt: number;
  /** >= 1, only meaningful when !allowed. */
  retryAfter: number;
}

export interface CounterStore {
  hit(key: string, limit: number, windowSeconds: number): Promise<WindowResult>;
  /** `hit` without waiting, on stores that keep their counters in this process (not Redis). */
  hitNow?(key: string, limit: number, windowSeconds: number): WindowResult;
  /** Fixed-window count without a verdict (view de-duplication). */
  increment(key: string, windowSeconds: number): Promise<number>;
  /**
   * Sliding window: the hits of the last `windowSeconds`, this one included (memory stops at
   * 256). For the burst safeguard, where a fixed window would miss a burst across its end.
   */
  countRecent(key: string, windowSeconds: number): Promise<number>;
  /** Gives back one hit (decrement if > 0). */
  release(key: string, windowSeconds: number): Promise<void>;
  close(): Promise<void>;
}

/** At least 1 ms so a key always expires. */
export function windowMs(windowSeconds: number): number {
  return Math.max(1, Math.round(windowSeconds * 1000));
}

/** Both stores round here, upward: at `resetAt` the window is over for certain, never a few ms early. */
export function toWindowResult(allowed: boolean, limit: number, count: number, endsAtMs: number, nowMs: number): WindowResult {
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - count),
    resetAt: Math.ceil(endsAtMs / 1000),
    retryAfter: Math.max(1, Math.ceil((endsAtMs - nowMs) / 1000)),
  };
}
