/**
 * A fresh counter store per test file (or per test with `perTest`): Redis with a unique
 * key prefix when TEST_REDIS_URL is set, so the limit tests run against the shared store
 * too; memory otherwise.
 */
import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { MemoryStore, RedisStore, setCounterStore, type CounterStore } from "@/lib/ratelimit";

function newStore(): CounterStore {
  const url = process.env.TEST_REDIS_URL;
  return url
    ? new RedisStore({
        url,
        prefix: `mh:test:${randomBytes(6).toString("hex")}:`,
        log: (m) => {
          throw new Error(`Redis unavailable in a Redis test run: ${m}`);
        },
      })
    : new MemoryStore({ sweepIntervalMs: 0 });
}

export function useCounterStore(options: { perTest?: boolean } = {}): () => CounterStore {
  let store: CounterStore | undefined;
  const open = () => {
    store = newStore();
    setCounterStore(store);
  };
  const close = async () => {
    setCounterStore(undefined);
    await store?.close();
  };
  if (options.perTest) {
    beforeEach(open);
    afterEach(close);
  } else {
    beforeAll(open);
    afterAll(close);
  }
  return () => store!;
}
