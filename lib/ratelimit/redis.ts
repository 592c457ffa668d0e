/**
 * Redis counter store shared by every instance (docs/rate-limits.md, "Memory or Redis"); each
 * operation is one Lua script, so a check-and-increment never interleaves. Fails open: while
 * Redis is away, slow or failing, counts go to a per-process MemoryStore, so an outage of
 * Redis never becomes one of the service and each instance still enforces what it sees.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { optionalPackage } from "@/lib/config/packages";
import { MemoryStore } from "./memory";
import { toWindowResult, windowMs, type CounterStore, type WindowResult } from "./store";

export interface RedisStoreOptions {
  url: string;
  prefix?: string;
  timeoutMs?: number;
  fallback?: CounterStore;
  log?: (message: string) => void;
}

// hit: a denied hit neither increments nor touches the expiry, so the window's end (what
// Retry-After promised) never moves. Returns {admitted 0|1, hits in the window, ms left}.
const HIT = `
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then
  if tonumber(ARGV[1]) < 1 then
    return {0, 0, tonumber(ARGV[2])}
  end
  redis.call('SET', KEYS[1], 1, 'PX', ARGV[2])
  return {1, 1, tonumber(ARGV[2])}
end
if ttl == -1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
local count = tonumber(redis.call('GET', KEYS[1])) or 0
if count >= tonumber(ARGV[1]) then
  return {0, count, ttl}
end
return {1, redis.call('INCR', KEYS[1]), ttl}
`;

// increment: the first hit of a window sets the expiry (ttl -1 repairs a key that lost it).
const INCREMENT = `
local count = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return count
`;

// release: only a live window above zero; an absent key stays absent.
const RELEASE = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if count > 0 then
  redis.call('DECR', KEYS[1])
end
return 0
`;

// countRecent: a sorted set of hit times on the server's clock (every instance shares it).
const COUNT_RECENT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local span = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - span)
redis.call('ZADD', KEYS[1], now, ARGV[2])
redis.call('PEXPIRE', KEYS[1], span)
return redis.call('ZCARD', KEYS[1])
`;

interface ScriptCommands {
  mhRateHit(key: string, limit: number, windowMs: number): Promise<[number, number, number]>;
  mhRateIncrement(key: string, windowMs: number): Promise<number>;
  mhRateRelease(key: string): Promise<number>;
  mhRateCountRecent(key: string, windowMs: number, member: string): Promise<number>;
}
type ScriptedRedis = Redis & ScriptCommands;

export class RedisStore implements CounterStore {
  private readonly redis: ScriptedRedis;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly fallback: CounterStore;
  private readonly ownsFallback: boolean;
  private readonly log: (message: string) => void;
  private down = false;

  constructor(options: RedisStoreOptions) {
    this.prefix = options.prefix ?? "mh:rl:";
    this.timeoutMs = options.timeoutMs ?? 1000;
    this.fallback = options.fallback ?? new MemoryStore();
    this.ownsFallback = !options.fallback;
    this.log = options.log ?? ((message) => console.warn(message));

    const { Redis: Client } = optionalPackage<typeof import("ioredis")>("ioredis");
    const redis = new Client(options.url, {
      lazyConnect: false,
      // Few retries and a bounded connect: a rate-limit check must answer quickly.
      maxRetriesPerRequest: 2,
      enableOfflineQueue: true,
      connectTimeout: 5000,
    });
    redis.defineCommand("mhRateHit", { numberOfKeys: 1, lua: HIT });
    redis.defineCommand("mhRateIncrement", { numberOfKeys: 1, lua: INCREMENT });
    redis.defineCommand("mhRateRelease", { numberOfKeys: 1, lua: RELEASE });
    redis.defineCommand("mhRateCountRecent", { numberOfKeys: 1, lua: COUNT_RECENT });
    // Without an "error" listener ioredis prints every reconnect failure.
    redis.on("error", (error: Error) => this.markDown(error));
    redis.on("ready", () => this.markUp());
    this.redis = redis as ScriptedRedis;
  }

  async hit(key: string, limit: number, windowSeconds: number): Promise<WindowResult> {
    return this.attempt(
      async () => {
        const now = Date.now();
        const [admitted, count, msLeft] = await this.redis.mhRateHit(this.prefix + key, limit, windowMs(windowSeconds));
        return toWindowResult(Number(admitted) === 1, limit, Number(count), now + Number(msLeft), now);
      },
      () => this.fallback.hit(key, limit, windowSeconds),
    );
  }

  async increment(key: string, windowSeconds: number): Promise<number> {
    return this.attempt(
      async () => Number(await this.redis.mhRateIncrement(this.prefix + key, windowMs(windowSeconds))),
      () => this.fallback.increment(key, windowSeconds),
    );
  }

  async countRecent(key: string, windowSeconds: number): Promise<number> {
    return this.attempt(
      async () => Number(await this.redis.mhRateCountRecent(this.prefix + key, windowMs(windowSeconds), randomUUID())),
      () => this.fallback.countRecent(key, windowSeconds),
    );
  }

  async release(key: string, windowSeconds: number): Promise<void> {
    await this.attempt(
      async () => {
        await this.redis.mhRateRelease(this.prefix + key);
      },
      () => this.fallback.release(key, windowSeconds),
    );
  }

  async close(): Promise<void> {
    if (this.ownsFallback) await this.fallback.close();
    if (this.redis.status === "ready") {
      // QUIT lets pending replies arrive; bounded, since a half-dead server may not answer.
      await this.withTimeout(this.redis.quit()).catch(() => undefined);
    }
    this.redis.disconnect();
  }

  private async attempt<T>(primary: () => Promise<T>, fallback: () => Promise<T>): Promise<T> {
    if (this.down && this.redis.status !== "ready") return fallback();
    try {
      const result = await this.withTimeout(primary());
      // A failure seen while "ready" (one slow reply) ends with the next success.
      this.markUp();
      return result;
    } catch (error) {
      this.markDown(error instanceof Error ? error : new Error(String(error)));
      return fallback();
    }
  }

  private withTimeout<T>(promise: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no reply within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }

  private markDown(error: Error): void {
    if (this.down) return;
    this.down = true;
    this.log(`[ratelimit] Redis unavailable (${error.message}); failing open: counting per process until it is back`);
  }

  private markUp(): void {
    if (!this.down) return;
    this.down = false;
    this.log("[ratelimit] Redis is back; rate limits are shared again");
  }
}
