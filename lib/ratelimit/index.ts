/** The process-wide counter store: Redis with REDIS_URL, else in memory (docs/rate-limits.md). */
import { parseEnv } from "@/lib/config/env";
import { MemoryStore } from "./memory";
import { RedisStore } from "./redis";
import type { CounterStore } from "./store";

export type { CounterStore, WindowResult } from "./store";
export { MemoryStore, type MemoryStoreOptions } from "./memory";
export { RedisStore, type RedisStoreOptions } from "./redis";
export * from "./buckets";
export { rateLimitHeaders } from "./headers";

// On globalThis: Next's bundles (and dev reloads) must count into one store, with one Redis connection.
const holder = globalThis as unknown as { __mediahostCounterStore?: CounterStore };

export function createCounterStore(): CounterStore {
  // Parsed afresh (not env()'s cached copy): setCounterStore(undefined) means "read REDIS_URL again".
  const { REDIS_URL: url, REDIS_PREFIX: prefix } = parseEnv();
  return url ? new RedisStore({ url, prefix: `${prefix ?? "mh:"}rl:` }) : new MemoryStore();
}

export function counterStore(): CounterStore {
  holder.__mediahostCounterStore ??= createCounterStore();
  return holder.__mediahostCounterStore;
}

/** For tests; `undefined` reads REDIS_URL again. The previous store is not closed. */
export function setCounterStore(store: CounterStore | undefined): void {
  holder.__mediahostCounterStore = store;
}
