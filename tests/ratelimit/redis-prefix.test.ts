/**
 * REDIS_PREFIX (docs/configuration.md, lib/config/env.ts): the start of every Redis
 * key of ours, the counters behind rate limits and the upload burst safeguard. Deployments
 * (or test servers) sharing one Redis keep apart with different prefixes; the instances of
 * one deployment share their counters through the same one. Checked through the store the
 * service builds from the environment (`createCounterStore`), against a real Redis:
 * TEST_REDIS_URL, else redis://127.0.0.1:6379 when it answers (as tests/ratelimit/redis.test.ts).
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { redisAnswers } from "../support/redis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createCounterStore, type CounterStore } from "@/lib/ratelimit";

const EXPLICIT_URL = process.env.TEST_REDIS_URL || "";
const REDIS_URL = EXPLICIT_URL || "redis://127.0.0.1:6379";

const reachable = await redisAnswers(REDIS_URL);
/** Unique per run, so parallel runs sharing the Redis never meet. */
const RUN = `mh:prefix-test:${process.pid}:${randomBytes(4).toString("hex")}:`;

describe.runIf(reachable || EXPLICIT_URL !== "")("REDIS_PREFIX (real Redis)", () => {
  let admin: Redis;
  const stores: CounterStore[] = [];
  /** Keys written outside RUN (the default prefix), removed at the end. */
  const stray: string[] = [];
  const warn = vi.spyOn(console, "warn");

  /** The counter store a server started with this REDIS_PREFIX (undefined: unset) would use. */
  const storeWith = (prefix: string | undefined): CounterStore => {
    vi.stubEnv("REDIS_URL", REDIS_URL);
    vi.stubEnv("REDIS_PREFIX", prefix ?? "");
    const store = createCounterStore();
    stores.push(store);
    return store;
  };

  beforeAll(() => {
    if (!reachable) throw new Error(`Redis at ${REDIS_URL} is unreachable`);
    admin = new Redis(REDIS_URL);
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    vi.unstubAllEnvs();
    // A warning means a store fell back to memory: the counts above would prove nothing.
    expect(warn).not.toHaveBeenCalled();
  });
  afterAll(async () => {
    warn.mockRestore();
    if (!admin) return;
    const keys = [...(await admin.keys(`${RUN}*`)), ...stray];
    if (keys.length) await admin.del(...keys);
    admin.disconnect();
  });

  it("two prefixes count apart: one deployment's exhausted limit leaves the other's untouched", async () => {
    const first = storeWith(`${RUN}one:`);
    const second = storeWith(`${RUN}two:`);
    for (let i = 0; i < 3; i++) expect((await first.hit("signup:203.0.113.7", 3, 60)).allowed).toBe(true);
    expect((await first.hit("signup:203.0.113.7", 3, 60)).allowed).toBe(false);
    expect(await second.hit("signup:203.0.113.7", 3, 60)).toMatchObject({ allowed: true, remaining: 2 });
    // The upload burst safeguard's sliding counter too.
    expect(await first.countRecent("upload_burst:u1", 1)).toBe(1);
    expect(await first.countRecent("upload_burst:u1", 1)).toBe(2);
    expect(await second.countRecent("upload_burst:u1", 1)).toBe(1);
    // Each under its own prefix in Redis, the rate-limit keys below `rl:`.
    expect(await admin.get(`${RUN}one:rl:signup:203.0.113.7`)).toBe("3");
    expect(await admin.get(`${RUN}two:rl:signup:203.0.113.7`)).toBe("1");
  });

  it("one prefix is one set of counters: the instances of a deployment share them", async () => {
    const a = storeWith(`${RUN}shared:`);
    const b = storeWith(`${RUN}shared:`);
    for (let i = 0; i < 2; i++) await a.hit("posts_get:k1", 3, 60);
    expect(await b.hit("posts_get:k1", 3, 60)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await a.hit("posts_get:k1", 3, 60)).allowed).toBe(false);
    await a.countRecent("upload_burst:u2", 1);
    expect(await b.countRecent("upload_burst:u2", 1)).toBe(2);
  });

  it("unset or empty: the documented default `mh:`", async () => {
    const key = `default-check:${RUN}`;
    stray.push(`mh:rl:${key}`);
    await storeWith(undefined).hit(key, 5, 60);
    expect(await admin.get(`mh:rl:${key}`)).toBe("1");
  });
});
