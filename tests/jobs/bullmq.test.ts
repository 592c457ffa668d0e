/**
 * The Redis transport (REDIS_URL): a BullMQ message wakes a worker on another "instance"
 * at once, while the row stays the source of truth (a duplicate message runs nothing
 * twice). Real Redis: TEST_REDIS_URL, else redis://127.0.0.1:6379 when it answers.
 */
import { randomBytes } from "node:crypto";
import { redisAnswers } from "../support/redis";
import { afterAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { openBullTransport, type BullTransport } from "@/lib/jobs/bull";
import { enqueueJob } from "@/lib/jobs/queue";
import { JobWorker } from "@/lib/jobs/worker";
import { useTestDatabase } from "../support/db";

useTestDatabase();

const EXPLICIT_URL = process.env.TEST_REDIS_URL || "";
const REDIS_URL = EXPLICIT_URL || "redis://127.0.0.1:6379";

const reachable = await redisAnswers(REDIS_URL);

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.allSettled(closers.map((c) => c()));
});

describe.runIf(reachable || EXPLICIT_URL !== "")("BullMQ transport (real Redis)", () => {
  it("a published job runs at once on a worker of another instance, exactly once", async () => {
    const queue = `mediahost-jobs-test-${process.pid}-${randomBytes(4).toString("hex")}`;
    const kind = `bull-${queue}`;
    let runs = 0;
    // Instance B: a worker that would not poll again for a minute; only Redis can wake it.
    const worker = new JobWorker({ handlers: { [kind]: { run: async () => void runs++ } }, pollMs: 60_000, log: () => undefined });
    worker.start();
    const consumer: BullTransport = openBullTransport(REDIS_URL, (id) => worker.runById(id), queue);
    // Instance A: only publishes.
    const publisher: BullTransport = openBullTransport(REDIS_URL, undefined, queue);
    closers.push(
      () => worker.stop(),
      () => consumer.close(),
      () => publisher.close(),
    );
    await new Promise((r) => setTimeout(r, 300)); // B's first poll found nothing

    const job = await enqueueJob(kind, {});
    const started = Date.now();
    await publisher.publish(job.id);
    await publisher.publish(job.id); // a duplicate message
    for (;;) {
      const row = await db().job.findUniqueOrThrow({ where: { id: job.id } });
      if (row.state === "done") break;
      if (Date.now() - started > 10_000) throw new Error(`not run through Redis: ${row.state}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(runs).toBe(1);
    expect((await db().job.findUniqueOrThrow({ where: { id: job.id } })).attempts).toBe(1);
  });
});
