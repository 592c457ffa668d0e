import { afterEach, describe, expect, it, vi } from "vitest";
import { counterStore, MemoryStore, RedisStore, setCounterStore } from "@/lib/ratelimit";

describe("counterStore()", () => {
  afterEach(async () => {
    await counterStore().close();
    setCounterStore(undefined);
    vi.unstubAllEnvs();
  });

  it("is an in-memory store when REDIS_URL is unset or empty, one per process", () => {
    vi.stubEnv("REDIS_URL", "");
    setCounterStore(undefined);
    const store = counterStore();
    expect(store).toBeInstanceOf(MemoryStore);
    expect(counterStore()).toBe(store);
  });

  it("is a Redis store when REDIS_URL is set", async () => {
    // Nothing listens on port 1; constructing must not throw or hang.
    vi.stubEnv("REDIS_URL", "redis://127.0.0.1:1");
    setCounterStore(undefined);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const store = counterStore();
    expect(store).toBeInstanceOf(RedisStore);
    await store.close();
    warn.mockRestore();
  });

  it("lives on globalThis, so every bundle shares it, and tests can swap it", () => {
    const mine = new MemoryStore({ sweepIntervalMs: 0 });
    setCounterStore(mine);
    expect(counterStore()).toBe(mine);
    expect((globalThis as { __mediahostCounterStore?: unknown }).__mediahostCounterStore).toBe(mine);
  });
});
