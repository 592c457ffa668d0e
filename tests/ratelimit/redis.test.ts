/**
 * RedisStore against a real Redis: TEST_REDIS_URL, else redis://127.0.0.1:6379 when it
 * answers. With TEST_REDIS_URL set (CI) an unreachable Redis fails the run instead of
 * skipping, and any fallback warning fails a test, so a silent fail-open to memory can
 * never pass for a working Redis.
 */
import { createServer, Socket, type Server } from "node:net";
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { redisAnswers } from "../support/redis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { RedisStore } from "@/lib/ratelimit/redis";

const EXPLICIT_URL = process.env.TEST_REDIS_URL || "";
const REDIS_URL = EXPLICIT_URL || "redis://127.0.0.1:6379";

const reachable = await redisAnswers(REDIS_URL);
// One prefix per run (and per worker), so parallel runs never share a counter.
const PREFIX = `mh:rl:test:${process.pid}:${randomBytes(4).toString("hex")}:`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it.runIf(EXPLICIT_URL !== "")("Redis at TEST_REDIS_URL is reachable", () => {
  expect(reachable, `TEST_REDIS_URL=${EXPLICIT_URL} did not answer PING`).toBe(true);
});

describe.runIf(reachable || EXPLICIT_URL !== "")("RedisStore (real Redis)", () => {
  let admin: Redis;
  let warnings: string[] = [];
  const stores: RedisStore[] = [];
  const make = (url = REDIS_URL) => {
    const store = new RedisStore({ url, prefix: PREFIX, log: (m) => warnings.push(m) });
    stores.push(store);
    return store;
  };

  beforeAll(() => {
    if (!reachable) throw new Error(`Redis at ${REDIS_URL} is unreachable`);
    admin = new Redis(REDIS_URL);
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    // Every call must have been served by Redis, not by the fallback.
    expect(warnings).toEqual([]);
    warnings = [];
  });
  afterAll(async () => {
    if (!admin) return;
    const keys = await admin.keys(`${PREFIX}*`);
    if (keys.length) await admin.del(...keys);
    admin.disconnect();
  });

  it("counts down to a denial with truthful remaining, reset and retry-after", async () => {
    const store = make();
    const start = Date.now();
    for (let i = 1; i <= 20; i++) {
      expect(await store.hit("countdown", 20, 30)).toMatchObject({ allowed: true, limit: 20, remaining: 20 - i });
    }
    const denied = await store.hit("countdown", 20, 30);
    const end = Date.now();
    expect(denied).toMatchObject({ allowed: false, limit: 20, remaining: 0 });
    expect(denied.resetAt).toBeGreaterThanOrEqual(Math.ceil((start + 30_000) / 1000) - 1);
    expect(denied.resetAt).toBeLessThanOrEqual(Math.ceil((end + 30_000) / 1000));
    expect(denied.retryAfter).toBeGreaterThanOrEqual(29);
    expect(denied.retryAfter).toBeLessThanOrEqual(30);
    // Stored under the prefix, expiring with the window.
    const pttl = await admin.pttl(`${PREFIX}countdown`);
    expect(pttl).toBeGreaterThan(28_000);
    expect(pttl).toBeLessThanOrEqual(30_000);
  });

  it("does not count denied hits or extend the window with them", async () => {
    const store = make();
    await store.hit("denials", 2, 10);
    await store.hit("denials", 2, 10);
    const before = await admin.pttl(`${PREFIX}denials`);
    for (let i = 0; i < 20; i++) expect((await store.hit("denials", 2, 10)).allowed).toBe(false);
    expect(await admin.pttl(`${PREFIX}denials`)).toBeLessThanOrEqual(before);
    expect(await admin.get(`${PREFIX}denials`)).toBe("2");
    await store.release("denials", 10);
    expect((await store.hit("denials", 2, 10)).allowed).toBe(true);
    expect((await store.hit("denials", 2, 10)).allowed).toBe(false);
  });

  it("starts a new window after the old one ends", async () => {
    const store = make();
    expect((await store.hit("rollover", 1, 0.3)).allowed).toBe(true);
    const denied = await store.hit("rollover", 1, 0.3);
    expect(denied).toMatchObject({ allowed: false, retryAfter: 1 });
    await sleep(350);
    expect(await store.hit("rollover", 1, 0.3)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("countRecent slides on the server's clock: 4 + 5 hits across a boundary are 9 within one second", async () => {
    const store = make();
    expect(await store.countRecent("sliding", 1)).toBe(1);
    await new Promise((r) => setTimeout(r, 900));
    for (let i = 0; i < 4; i++) await store.countRecent("sliding", 1);
    // Past the second that began with the first hit: a fixed window would restart at 1.
    await new Promise((r) => setTimeout(r, 150));
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) counts.push(await store.countRecent("sliding", 1));
    expect(counts).toEqual([5, 6, 7, 8, 9]);
  });

  it("shares one count between two instances", async () => {
    const a = make();
    const b = make();
    for (let i = 0; i < 10; i++) await a.hit("shared", 15, 30);
    for (let i = 0; i < 4; i++) await b.hit("shared", 15, 30);
    expect(await b.hit("shared", 15, 30)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await a.hit("shared", 15, 30)).allowed).toBe(false);
    expect((await b.hit("shared", 15, 30)).allowed).toBe(false);
  });

  it("never over-admits concurrent hits: 50 in parallel on two instances, limit 20", async () => {
    const a = make();
    const b = make();
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).hit("race", 20, 30)));
    const admitted = results.filter((r) => r.allowed);
    expect(admitted).toHaveLength(20);
    expect(new Set(admitted.map((r) => r.remaining))).toEqual(new Set(Array.from({ length: 20 }, (_, i) => i)));
    expect(results.filter((r) => !r.allowed).every((r) => r.remaining === 0)).toBe(true);
    expect(await admin.get(`${PREFIX}race`)).toBe("20");
  });

  it("increment counts across instances and expires with its window", async () => {
    const a = make();
    const b = make();
    const counts = await Promise.all(Array.from({ length: 9 }, (_, i) => (i % 2 ? a : b).increment("burst", 0.3)));
    expect([...counts].sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const pttl = await admin.pttl(`${PREFIX}burst`);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(300);
    await sleep(350);
    expect(await a.increment("burst", 0.3)).toBe(1);
  });

  it("release decrements, never below zero, never creates a key, keeps the expiry", async () => {
    const store = make();
    await store.release("absent", 30);
    expect(await admin.exists(`${PREFIX}absent`)).toBe(0);
    await store.increment("rel", 30);
    await store.increment("rel", 30);
    await store.release("rel", 30);
    expect(await admin.get(`${PREFIX}rel`)).toBe("1");
    await store.release("rel", 30);
    await store.release("rel", 30);
    expect(await admin.get(`${PREFIX}rel`)).toBe("0");
    expect(await admin.pttl(`${PREFIX}rel`)).toBeGreaterThan(0);
  });

  it("falls back during an outage and goes back to Redis when it returns", async () => {
    const target = new URL(REDIS_URL);
    const sockets = new Set<Socket>();
    const listen = (server: Server, port: number) =>
      new Promise<number>((resolve) =>
        server.listen(port, "127.0.0.1", () => {
          const address = server.address();
          resolve(typeof address === "object" && address ? address.port : 0);
        }),
      );
    const makeProxy = () =>
      createServer((client) => {
        const upstream = new Socket();
        upstream.connect(Number(target.port || 6379), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
          s.on("error", () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });

    let proxy = makeProxy();
    const port = await listen(proxy, 0);
    const viaProxy = new URL(REDIS_URL);
    viaProxy.hostname = "127.0.0.1";
    viaProxy.port = String(port);
    const store = make(viaProxy.toString());
    expect((await store.hit("outage", 5, 30)).remaining).toBe(4);

    // Outage: refuse new connections and cut the open ones.
    await new Promise<void>((resolve) => {
      proxy.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
    const t0 = Date.now();
    let during = await store.hit("outage", 5, 30);
    // Counted locally now (the fallback starts from zero), and answered promptly.
    expect(during.allowed).toBe(true);
    during = await store.hit("outage", 5, 30);
    expect(Date.now() - t0).toBeLessThan(2_500);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/Redis unavailable/);

    proxy = makeProxy();
    await listen(proxy, port);
    for (let i = 0; i < 50 && warnings.length < 2; i++) await sleep(100);
    expect(warnings[1]).toMatch(/Redis is back/);
    // Back on the shared count, which the outage did not touch.
    expect((await store.hit("outage", 5, 30)).remaining).toBe(3);
    warnings = [];
    await store.close();
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
  });
});
