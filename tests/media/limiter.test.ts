import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DomainError } from "@/lib/errors";
import { defaultConcurrency, parseMediaConfig, resetMediaConfig } from "@/lib/media/config";
import { runFfmpeg, runFfprobe } from "@/lib/media/ffmpeg";
import { holdsMediaSlot, MediaLimiter, mediaLimiter, resetMediaLimiter, withMediaSlot } from "@/lib/media/limiter";
import { fixture } from "../support/media";

const settle = <T>(p: Promise<T>) => p.then((v) => ({ ok: true as const, v }), (e: unknown) => ({ ok: false as const, e }));
const tick = () => new Promise((r) => setTimeout(r, 10));

describe("MediaLimiter", () => {
  it("runs up to `concurrency` jobs, queues up to `queueMax`, refuses the next at once", async () => {
    const limiter = new MediaLimiter(2, 1);
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
    const limiter = new MediaLimiter(1, 1);
    const release = await limiter.acquire();
    const controller = new AbortController();
    const waiting = settle(limiter.acquire(controller.signal));
    controller.abort();
    expect((await waiting).ok).toBe(false);
    expect(limiter.stats().waiting).toBe(0);
    release();
    expect(limiter.stats().active).toBe(0);
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
  it("default to max(2, cpus - 1) slots, 8 waiting, 300 s", () => {
    expect(defaultConcurrency(1)).toBe(2);
    expect(defaultConcurrency(2)).toBe(2);
    expect(defaultConcurrency(8)).toBe(7);
    expect(parseMediaConfig({})).toMatchObject({ queueMax: 8, timeoutMs: 300_000 });
    expect(parseMediaConfig({ MEDIA_CONCURRENCY: "3", MEDIA_QUEUE_MAX: "0", MEDIA_TIMEOUT_SECONDS: "20", FFMPEG_PATH: " " })).toEqual({
      concurrency: 3,
      queueMax: 0,
      timeoutMs: 20_000,
      ffmpegPath: undefined,
      ffprobePath: undefined,
      toolsSource: "auto",
      searchPath: "",
    });
    expect(() => parseMediaConfig({ MEDIA_CONCURRENCY: "0" })).toThrow(/MEDIA_CONCURRENCY/);
    expect(() => parseMediaConfig({ MEDIA_TIMEOUT_SECONDS: "soon" })).toThrow(/MEDIA_TIMEOUT_SECONDS/);
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
