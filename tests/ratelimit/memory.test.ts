import { afterEach, describe, expect, it } from "vitest";
import { MemoryStore } from "@/lib/ratelimit/memory";

/** A clock the test moves by hand; starts mid-second so rounding is exercised. */
function fakeClock(start = 1_700_000_000_250) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

describe("MemoryStore", () => {
  const stores: MemoryStore[] = [];
  const make = (clock: ReturnType<typeof fakeClock>, maxKeys?: number) => {
    const store = new MemoryStore({ now: clock.now, sweepIntervalMs: 0, maxKeys });
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });

  it("counts down to a denial with truthful remaining, reset and retry-after", async () => {
    const clock = fakeClock();
    const store = make(clock);
    const start = clock.now();
    for (let i = 1; i <= 20; i++) {
      const r = await store.hit("k", 20, 30);
      expect(r).toMatchObject({ allowed: true, limit: 20, remaining: 20 - i });
      // Window = first hit + 30 s, rounded up to the next whole second.
      expect(r.resetAt).toBe(Math.ceil((start + 30_000) / 1000));
      clock.advance(100);
    }
    const denied = await store.hit("k", 20, 30);
    expect(denied).toMatchObject({ allowed: false, limit: 20, remaining: 0 });
    expect(denied.resetAt).toBe(Math.ceil((start + 30_000) / 1000));
    // 2 s of the window used: 28 s left.
    expect(denied.retryAfter).toBe(28);
    expect(clock.now() + denied.retryAfter * 1000).toBeGreaterThanOrEqual(start + 30_000);
  });

  it("admits again exactly when the window ends, and not a millisecond before", async () => {
    const clock = fakeClock();
    const store = make(clock);
    await store.hit("k", 1, 2);
    clock.advance(1_999);
    const denied = await store.hit("k", 1, 2);
    expect(denied.allowed).toBe(false);
    expect(denied.retryAfter).toBe(1);
    clock.advance(1);
    const next = await store.hit("k", 1, 2);
    expect(next).toMatchObject({ allowed: true, remaining: 0 });
    // The new window starts at this hit.
    expect(next.resetAt).toBe(Math.ceil((clock.now() + 2_000) / 1000));
  });

  it("does not count denied hits or extend the window with them", async () => {
    const clock = fakeClock();
    const store = make(clock);
    const first = await store.hit("k", 2, 10);
    await store.hit("k", 2, 10);
    for (let i = 0; i < 50; i++) {
      clock.advance(100);
      const r = await store.hit("k", 2, 10);
      expect(r.allowed).toBe(false);
      expect(r.remaining).toBe(0);
      expect(r.resetAt).toBe(first.resetAt);
    }
    // Releasing one admitted hit frees exactly one slot: denials were never counted.
    await store.release("k", 10);
    expect((await store.hit("k", 2, 10)).allowed).toBe(true);
    expect((await store.hit("k", 2, 10)).allowed).toBe(false);
  });

  it("retryAfter is at least 1 even in the last milliseconds of a window", async () => {
    const clock = fakeClock();
    const store = make(clock);
    await store.hit("k", 1, 1);
    clock.advance(999);
    const r = await store.hit("k", 1, 1);
    expect(r).toMatchObject({ allowed: false, retryAfter: 1 });
  });

  it("keeps keys apart", async () => {
    const store = make(fakeClock());
    expect((await store.hit("a", 1, 60)).allowed).toBe(true);
    expect((await store.hit("a", 1, 60)).allowed).toBe(false);
    expect((await store.hit("b", 1, 60)).allowed).toBe(true);
  });

  it("increment counts per window and restarts after it", async () => {
    const clock = fakeClock();
    const store = make(clock);
    const counts: number[] = [];
    for (let i = 0; i < 9; i++) counts.push(await store.increment("burst", 1));
    expect(counts).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    clock.advance(1_000);
    expect(await store.increment("burst", 1)).toBe(1);
  });

  it("countRecent counts the hits of the last window, sliding: a burst across any boundary is seen", async () => {
    const clock = fakeClock();
    const store = make(clock);
    expect(await store.countRecent("burst", 1)).toBe(1);
    clock.advance(900);
    for (let i = 0; i < 4; i++) await store.countRecent("burst", 1);
    clock.advance(150); // a fixed window that began with the first hit would restart here
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) counts.push(await store.countRecent("burst", 1));
    // The first hit is more than a second old; the 4 + 5 are within one second.
    expect(counts).toEqual([5, 6, 7, 8, 9]);
    clock.advance(1_000);
    expect(await store.countRecent("burst", 1)).toBe(1);
    expect(await store.countRecent("other", 1)).toBe(1);
  });

  it("release decrements a live window, never below zero, and ignores absent keys", async () => {
    const clock = fakeClock();
    const store = make(clock);
    await store.release("none", 30);
    expect(store.size).toBe(0);
    await store.increment("k", 30);
    await store.release("k", 30);
    await store.release("k", 30);
    expect(await store.increment("k", 30)).toBe(1);
    clock.advance(30_000);
    await store.release("k", 30); // expired: nothing to give back
    expect(await store.increment("k", 30)).toBe(1);
  });

  it("sweep drops expired keys", async () => {
    const clock = fakeClock();
    const store = make(clock);
    await store.hit("short", 5, 1);
    await store.hit("long", 5, 3600);
    clock.advance(1_000);
    store.sweep();
    expect(store.size).toBe(1);
  });

  it("never holds more than maxKeys, dropping the oldest windows first", async () => {
    const clock = fakeClock();
    const store = make(clock, 100);
    for (let i = 0; i < 1_000; i++) await store.increment(`view:${i}`, 3600);
    expect(store.size).toBeLessThanOrEqual(100);
    // The newest key survived with its count.
    expect(await store.increment("view:999", 3600)).toBe(2);
  });

  it("sweeps on an unref'd timer", async () => {
    const store = new MemoryStore({ sweepIntervalMs: 20 });
    stores.push(store);
    await store.hit("k", 1, 0.01);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(store.size).toBe(0);
  });
});
