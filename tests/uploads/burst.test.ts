/**
 * A burst of uploads against the media queue's bounds (docs/media.md, "Limits"): waiting
 * jobs are bounded by the bytes of their inputs and by time, not by a count of 8, so a burst
 * under the bounds gets no 503; past MEDIA_QUEUE_BYTES the extra uploads get 503
 * `unavailable` with Retry-After.
 */
import { stat } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { resetMediaConfig } from "@/lib/media/config";
import { mediaLimiter, resetMediaLimiter, withMediaSlot } from "@/lib/media/limiter";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser } from "../support/fixtures";
import { api, type Reply } from "../support/http";
import { fixture } from "../support/media";
import { form } from "../support/multipart";

useTestDatabase();
useCounterStore();

async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** One upload per fresh account, as bench:upload's burst (the per-account burst guard stays out of the way). */
async function uploadAs(path: string): Promise<Reply> {
  const who = await createTestUser({ plan: "ultra" });
  return api("/upload", { method: "POST", key: who.apiKey, rawBody: await form([{ path, type: "image/jpeg" }]) });
}

/**
 * Runs `fn` with `env` applied and the one media slot held by the test until `release()`:
 * every upload of the burst has to wait in the queue.
 */
async function withSlotHeld(env: Record<string, string>, fn: (release: () => void) => Promise<void>): Promise<void> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  resetMediaConfig();
  resetMediaLimiter();
  let open!: () => void;
  const held = withMediaSlot(() => new Promise<void>((done) => (open = done)));
  await until(() => mediaLimiter().stats().active === 1);
  try {
    await fn(open);
  } finally {
    open();
    await held;
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetMediaConfig();
    resetMediaLimiter();
  }
}

afterEach(() => {
  expect(mediaLimiter().stats()).toMatchObject({ active: 0, waiting: 0 });
});

describe("uploads waiting for a media slot", () => {
  it("on the defaults, 40 uploads wait (5 times the old count bound of 8) and all succeed: no 503", async () => {
    const jpeg = await fixture("jpegExif");
    await withSlotHeld({ MEDIA_CONCURRENCY: "1" }, async (release) => {
      const replies = Array.from({ length: 40 }, () => uploadAs(jpeg));
      await until(() => mediaLimiter().stats().waiting === 40);
      release();
      const statuses = (await Promise.all(replies)).map((r) => r.status);
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
    });
  });

  it("past MEDIA_QUEUE_BYTES the next upload gets 503 unavailable with Retry-After; under it none", async () => {
    const jpeg = await fixture("jpegExif");
    const size = (await stat(jpeg)).size;
    // Room for exactly three waiting files.
    await withSlotHeld({ MEDIA_CONCURRENCY: "1", MEDIA_QUEUE_BYTES: String(3 * size) }, async (release) => {
      const admitted = Array.from({ length: 3 }, () => uploadAs(jpeg));
      await until(() => mediaLimiter().stats().waiting === 3);
      expect(mediaLimiter().stats().waitingBytes).toBe(3 * size);
      const refused = await uploadAs(jpeg);
      expect(refused.status, refused.text).toBe(503);
      expect(refused.body.error.type).toBe("unavailable");
      expect(refused.headers.get("retry-after")).toBe("5");
      release();
      expect((await Promise.all(admitted)).map((r) => r.status)).toEqual([200, 200, 200]);
    });
  });

  it("an upload that waited MEDIA_QUEUE_WAIT_SECONDS for a slot gets 503 unavailable with Retry-After", async () => {
    const jpeg = await fixture("jpegExif");
    await withSlotHeld({ MEDIA_CONCURRENCY: "1", MEDIA_QUEUE_WAIT_SECONDS: "1" }, async () => {
      const started = Date.now();
      const reply = await uploadAs(jpeg);
      expect(reply.status, reply.text).toBe(503);
      expect(reply.body.error.type).toBe("unavailable");
      expect(reply.headers.get("retry-after")).toBe("5");
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    });
  });
});
