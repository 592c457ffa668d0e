/**
 * A fresh counter store per test file: Redis (with a unique key prefix) when
 * TEST_REDIS_URL is set, so the limit tests run against the shared store too; else memory.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { MemoryStore, RedisStore, setCounterStore, type CounterStore } from "@/lib/ratelimit";

export function useCounterStore(): () => CounterStore {
  let store: CounterStore | undefined;
  beforeAll(() => {
    const url = process.env.TEST_REDIS_URL;
    store = url
      ? new RedisStore({ url, prefix: `mh:test:${randomBytes(6).toString("hex")}:`, log: (m) => { throw new Error(`Redis unavailable in a Redis test run: ${m}`); } })
      : new MemoryStore({ sweepIntervalMs: 0 });
    setCounterStore(store);
  });
  afterAll(async () => {
    setCounterStore(undefined);
    await store?.close();
  });
  return () => store!;
}
