/**
 * Fail-open: an unreachable or unresponsive Redis must neither fail nor hang a request.
 * The store answers from its in-process fallback, logs one warning per outage, and is
 * bounded in time. No Redis needed.
 */
import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { RedisStore } from "@/lib/ratelimit/redis";

describe("RedisStore when Redis is unavailable", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function make(url: string, timeoutMs = 1000) {
    const warnings: string[] = [];
    const store = new RedisStore({ url, timeoutMs, log: (m) => warnings.push(m) });
    cleanups.push(() => store.close());
    return { store, warnings };
  }

  it("fails open on a refused connection, quickly, with one warning", async () => {
    const { store, warnings } = make("redis://127.0.0.1:1");
    const t0 = Date.now();
    const first = await store.hit("k", 2, 30);
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect(first).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/Redis unavailable.*failing open/);

    // Once known down, calls skip Redis entirely, and limits still hold per process.
    const t1 = Date.now();
    expect((await store.hit("k", 2, 30)).allowed).toBe(true);
    expect((await store.hit("k", 2, 30)).allowed).toBe(false);
    expect(await store.increment("burst", 1)).toBe(1);
    expect(await store.increment("burst", 1)).toBe(2);
    await store.release("k", 30);
    expect((await store.hit("k", 2, 30)).allowed).toBe(true);
    expect(Date.now() - t1).toBeLessThan(100);
    expect(warnings).toHaveLength(1);

    const t2 = Date.now();
    await store.close();
    expect(Date.now() - t2).toBeLessThan(1_000);
  });

  it("bounds a Redis that accepts connections but never answers", async () => {
    const sockets = new Set<Socket>();
    const server: Server = createServer((socket) => {
      sockets.add(socket); // swallow everything, reply nothing
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const s of sockets) s.destroy();
          server.close(() => resolve());
        }),
    );
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;

    const { store, warnings } = make(`redis://127.0.0.1:${port}`, 200);
    const t0 = Date.now();
    expect((await store.hit("k", 5, 30)).allowed).toBe(true);
    const elapsed = Date.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(1_000);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/no reply within 200 ms/);

    const t1 = Date.now();
    expect(await store.increment("burst", 1)).toBe(1);
    expect(Date.now() - t1).toBeLessThan(100);
  });
});
