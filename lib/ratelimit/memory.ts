/** In-process counter store: the default without REDIS_URL and Redis's fallback; correct for a single instance only. */
import { toWindowResult, windowMs, type CounterStore, type WindowResult } from "./store";

export interface MemoryStoreOptions {
  now?: () => number;
  /** 0 disables the timer (sweeps stay lazy). */
  sweepIntervalMs?: number;
  /** Past it the oldest windows go: dropping a counter can only admit, never deny, so a key flood costs accuracy, not memory. */
  maxKeys?: number;
}

interface Counter {
  count: number;
  endsAt: number;
}

interface RecentHits {
  at: number[];
  windowMs: number;
}

const MAX_RECENT_HITS = 256;

export class MemoryStore implements CounterStore {
  // Map keeps insertion order, and a key is (re)inserted when its window starts, so
  // iteration order is oldest window first: what eviction wants.
  private readonly counters = new Map<string, Counter>();
  private readonly recent = new Map<string, RecentHits>();
  private readonly now: () => number;
  private readonly maxKeys: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: MemoryStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.maxKeys = options.maxKeys ?? 100_000;
    const every = options.sweepIntervalMs ?? 60_000;
    if (every > 0) {
      this.timer = setInterval(() => this.sweep(), every);
      // A rate-limit sweep must never keep a process (or a test worker) alive.
      this.timer.unref();
    }
  }

  async hit(key: string, limit: number, windowSeconds: number): Promise<WindowResult> {
    return this.hitNow(key, limit, windowSeconds);
  }

  hitNow(key: string, limit: number, windowSeconds: number): WindowResult {
    const now = this.now();
    const counter = this.current(key, windowSeconds, now);
    if (counter.count >= limit) return toWindowResult(false, limit, counter.count, counter.endsAt, now);
    counter.count += 1;
    return toWindowResult(true, limit, counter.count, counter.endsAt, now);
  }

  async increment(key: string, windowSeconds: number): Promise<number> {
    const counter = this.current(key, windowSeconds, this.now());
    counter.count += 1;
    return counter.count;
  }

  async countRecent(key: string, windowSeconds: number): Promise<number> {
    const now = this.now();
    const span = windowMs(windowSeconds);
    let hits = this.recent.get(key);
    if (!hits) {
      if (this.recent.size >= this.maxKeys) this.sweepRecent(now);
      // Still full: the oldest key goes (insertion order). Forgetting hits can only miss a burst.
      if (this.recent.size >= this.maxKeys) this.recent.delete(this.recent.keys().next().value!);
      hits = { at: [], windowMs: span };
      this.recent.set(key, hits);
    }
    hits.windowMs = span;
    let stale = 0;
    while (stale < hits.at.length && hits.at[stale] <= now - span) stale++;
    if (stale) hits.at.splice(0, stale);
    hits.at.push(now);
    if (hits.at.length > MAX_RECENT_HITS) hits.at.splice(0, hits.at.length - MAX_RECENT_HITS);
    return hits.at.length;
  }

  async release(key: string, _windowSeconds: number): Promise<void> {
    // Only a live window is decremented; releasing into an expired or absent window
    // would hand out budget in a window the hit never belonged to.
    const counter = this.counters.get(key);
    if (counter && counter.endsAt > this.now() && counter.count > 0) counter.count -= 1;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.counters.clear();
    this.recent.clear();
  }

  get size(): number {
    return this.counters.size;
  }

  sweep(): void {
    const now = this.now();
    for (const [key, counter] of this.counters) {
      if (counter.endsAt <= now) this.counters.delete(key);
    }
    this.sweepRecent(now);
  }

  private sweepRecent(now: number): void {
    for (const [key, hits] of this.recent) {
      const newest = hits.at[hits.at.length - 1] ?? 0;
      if (newest <= now - hits.windowMs) this.recent.delete(key);
    }
  }

  private current(key: string, windowSeconds: number, now: number): Counter {
    const existing = this.counters.get(key);
    if (existing && existing.endsAt > now) return existing;
    if (existing) this.counters.delete(key);
    else if (this.counters.size >= this.maxKeys) this.makeRoom();
    const fresh: Counter = { count: 0, endsAt: now + windowMs(windowSeconds) };
    this.counters.set(key, fresh);
    return fresh;
  }

  private makeRoom(): void {
    this.sweep();
    // Still full of live windows: drop the oldest tenth in one go, so a flood does not
    // pay for a full sweep on every new key.
    let excess = this.counters.size - this.maxKeys + 1;
    if (excess <= 0) return;
    excess = Math.max(excess, Math.ceil(this.maxKeys / 10));
    for (const key of this.counters.keys()) {
      if (excess-- <= 0) break;
      this.counters.delete(key);
    }
  }
}
