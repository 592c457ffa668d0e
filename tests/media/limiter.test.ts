import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DomainError } from "@/lib/errors";
import { defaultConcurrency, parseMediaConfig, resetMediaConfig } from "@/lib/media/config";
import { runFfmpeg, runFfprobe } from "@/lib/media/ffmpeg";
import { holdsMediaSlot, MediaLimiter, mediaLimiter, resetMediaLimiter, withMediaSlot } from "@/lib/media/limiter";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixture } from "../support/media";

const settle = <T>(p: Promise<T>) =>
  p.then(
    (v) => ({ ok: true as const, v }),
    (e: unknown) => ({ ok: false as const, e }),
  );
const tick = () => new Promise((r) => setTimeout(r, 10));
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 5));
}

describe("MediaLimiter", () => {
  it("runs up to `concurrency` jobs, queues up to `queueMax`, refuses the next at once", async () => {
    const limiter = new MediaLimiter({ concurrency: 2, queueMax: 1 });
    const r1 = await limiter.acquire();
    const r2 = await limiter.acquire();
    const queued = limiter.acquire();
    expect(limiter.stats()).toMatchObject({ active: 2, waiting: 1 });

    const refused = await settle(limiter.acquire());
    expect(refused.ok).toBe(false);
    const e = (refused as { e: DomainError }).e;
    expect(e).toBeInstanceOf(DomainError);
    expect(e.type).toBe("unavailable");
    expect(e.httpStatus).toBe(503);

    r1();
    r1(); // releasing twice is harmless
    const r3 = await queued;
    expect(limiter.stats()).toMatchObject({ active: 2, waiting: 0 });
    r2();
    r3();
    expect(limiter.stats()).toMatchObject({ active: 0, waiting: 0 });
  });

  it("an aborted waiter leaves the queue", async () => {
    const limiter = new MediaLimiter({ concurrency: 1, queueMax: 1 });
    const release = await limiter.acquire();
    const controller = new AbortController();
    const waiting = settle(limiter.acquire({ signal: controller.signal }));
    controller.abort();
    expect((await waiting).ok).toBe(false);
    expect(limiter.stats().waiting).toBe(0);
    release();
    expect(limiter.stats().active).toBe(0);
  });

  it("bounds the waiting jobs by the bytes of their inputs: past MEDIA_QUEUE_BYTES a job is refused with 503 and Retry-After", async () => {
    const limiter = new MediaLimiter({ concurrency: 1, queueBytes: 1000 });
    const release = await limiter.acquire({ input: 5000 });
    // The first waiter gets in whatever its size, so a big file is never refused for good.
    const big = limiter.acquire({ input: 4000 });
    const refused = await settle(limiter.acquire({ input: 1 }));
    expect(refused.ok).toBe(false);
    expect((refused as { e: DomainError }).e).toMatchObject({ type: "unavailable", httpStatus: 503, retryAfter: 5 });
    release();
    const releaseBig = await big;
    // The queue is empty again: small jobs up to the bound wait, one more byte is refused.
    const small = [limiter.acquire({ input: Buffer.alloc(600) }), limiter.acquire({ input: 400 })];
    expect(limiter.stats()).toMatchObject({ waiting: 2, waitingBytes: 1000 });
    expect((await settle(limiter.acquire({ input: 1 }))).ok).toBe(false);
    releaseBig();
    (await small[0])();
    (await small[1])();
    expect(limiter.stats()).toMatchObject({ active: 0, waiting: 0, waitingBytes: 0 });
  });

  it("sizes a waiting job's input file from the disk", async () => {
    const dir = await mkdtemp(join(tmpdir(), "limiter-"));
    try {
      const file = join(dir, "in.bin");
      await writeFile(file, Buffer.alloc(3000));
      const limiter = new MediaLimiter({ concurrency: 1, queueBytes: 5000 });
      const release = await limiter.acquire({ input: file });
      const first = limiter.acquire({ input: file });
      await until(() => limiter.stats().waiting === 1);
      expect(limiter.stats().waitingBytes).toBe(3000);
      // 3000 + 3000 > 5000: the second file does not fit beside the first.
      const refused = await settle(limiter.acquire({ input: file }));
      expect((refused as { e: DomainError }).e).toMatchObject({ type: "unavailable" });
      release();
      (await first)();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a job that waited MEDIA_QUEUE_WAIT_SECONDS without a slot is refused with 503; the others keep their place", async () => {
    const limiter = new MediaLimiter({ concurrency: 1, queueWaitMs: 50 });
    const release = await limiter.acquire();
    const timedOut = settle(limiter.acquire({ input: 10 }));
    const outcome = await timedOut;
    expect(outcome.ok).toBe(false);
    expect((outcome as { e: DomainError }).e).toMatchObject({ type: "unavailable", httpStatus: 503, retryAfter: 5 });
    expect(limiter.stats()).toMatchObject({ waiting: 0, waitingBytes: 0 });
    // A waiter that gets its slot in time is not refused later by its timer.
    const next = limiter.acquire();
    release();
    const releaseNext = await next;
    await new Promise((r) => setTimeout(r, 80));
    expect(limiter.stats()).toMatchObject({ active: 1, waiting: 0 });
    releaseNext();
    expect(limiter.stats().active).toBe(0);
  });

  it("with no count bound (the default), 200 waiting jobs of 1 MB are all admitted", async () => {
    const limiter = new MediaLimiter({ concurrency: 2, queueBytes: 4 * 1024 ** 3, queueWaitMs: 120_000 });
    const releases = [await limiter.acquire(), await limiter.acquire()];
    const waiting = Array.from({ length: 200 }, () => limiter.acquire({ input: 1024 * 1024 }));
    expect(limiter.stats()).toMatchObject({ waiting: 200, waitingBytes: 200 * 1024 * 1024 });
    for (const r of releases) r();
    for (const w of waiting) (await w)();
    expect(limiter.stats()).toMatchObject({ active: 0, waiting: 0, waitingBytes: 0 });
  });

  it("withMediaSlot is re-entrant: nested steps of one job share its slot", async () => {
    const limiter = mediaLimiter();
    expect(holdsMediaSlot()).toBe(false);
    await withMediaSlot(async () => {
      expect(holdsMediaSlot()).toBe(true);
      const before = limiter.stats().active;
      await withMediaSlot(async () => expect(limiter.stats().active).toBe(before));
    });
  });
});

describe("settings", () => {
  it("default to max(2, cpus - 1) slots, a queue bounded by 4 GiB and 120 s (no count), 300 s", () => {
    expect(defaultConcurrency(1)).toBe(2);
    expect(defaultConcurrency(2)).toBe(2);
    expect(defaultConcurrency(8)).toBe(7);
    expect(parseMediaConfig({})).toMatchObject({ queueMax: null, queueBytes: 4 * 1024 ** 3, queueWaitMs: 120_000, timeoutMs: 300_000 });
    expect(
      parseMediaConfig({
        MEDIA_CONCURRENCY: "3",
        MEDIA_QUEUE_MAX: "0",
        MEDIA_QUEUE_BYTES: "512MB",
        MEDIA_QUEUE_WAIT_SECONDS: "0",
        MEDIA_TIMEOUT_SECONDS: "20",
        FFMPEG_PATH: " ",
      }),
    ).toEqual({
      concurrency: 3,
      queueMax: 0,
      queueBytes: 512 * 1024 * 1024,
      queueWaitMs: 0,
      timeoutMs: 20_000,
      ffmpegPath: undefined,
      ffprobePath: undefined,
      toolsSource: "auto",
      searchPath: "",
    });
    expect(() => parseMediaConfig({ MEDIA_CONCURRENCY: "0" })).toThrow(/MEDIA_CONCURRENCY/);
    expect(() => parseMediaConfig({ MEDIA_TIMEOUT_SECONDS: "soon" })).toThrow(/MEDIA_TIMEOUT_SECONDS/);
    expect(() => parseMediaConfig({ MEDIA_QUEUE_BYTES: "lots" })).toThrow(/MEDIA_QUEUE_BYTES/);
    expect(() => parseMediaConfig({ MEDIA_QUEUE_WAIT_SECONDS: "-1" })).toThrow(/MEDIA_QUEUE_WAIT_SECONDS/);
  });
});

describe("real ffmpeg jobs with MEDIA_CONCURRENCY=1, MEDIA_QUEUE_MAX=2", () => {
  beforeAll(() => {
    vi.stubEnv("MEDIA_CONCURRENCY", "1");
    vi.stubEnv("MEDIA_QUEUE_MAX", "2");
    resetMediaConfig();
    resetMediaLimiter();
  });
  afterAll(() => {
    vi.unstubAllEnvs();
    resetMediaConfig();
    resetMediaLimiter();
  });

  it("the 4th job (1 running + 2 waiting) is refused with unavailable; the queue drains in order", async () => {
    const [mp4, mov, mkv] = await Promise.all([fixture("mp4"), fixture("mov"), fixture("mkv")]);
    const controller = new AbortController();
    const endless = ["-re", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-f", "null", "-"];
    const running = settle(runFfmpeg(endless, { signal: controller.signal }));
    await tick();
    const order: string[] = [];
    const second = runFfprobe(mp4).then((r) => (order.push("second"), r));
    const third = runFfprobe(mov).then((r) => (order.push("third"), r));
    await tick();
    expect(mediaLimiter().stats()).toMatchObject({ active: 1, waiting: 2, concurrency: 1, queueMax: 2 });

    const started = Date.now();
    const fourth = await settle(runFfprobe(mkv));
    expect(Date.now() - started).toBeLessThan(100);
    expect(fourth.ok).toBe(false);
    expect((fourth as { e: DomainError }).e).toMatchObject({ type: "unavailable" });

    controller.abort();
    expect((await running).ok).toBe(false);
    expect((await second).formatName).toContain("mp4");
    expect((await third).formatName).toContain("mov");
    expect(order).toEqual(["second", "third"]);
    expect(mediaLimiter().stats()).toMatchObject({ active: 0, waiting: 0 });
  });
});
