/**
 * The job queue on the real test database: leases (two workers never run one job, an
 * expired lease is taken over), retries with backoff, giving up, and a restart mid-queue.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetEnv } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { claimJob, enqueueJob, retryDelayMs } from "@/lib/jobs/queue";
import { JobWorker, PermanentJobError, type JobHandler } from "@/lib/jobs/worker";
import { useTestDatabase } from "../support/db";

useTestDatabase();

beforeAll(() => {
  process.env.JOB_RETRY_BASE_MS = "30";
  resetEnv();
});

const workers: JobWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});

let kindCounter = 0;
/** A kind of its own per test, so workers of one test never see another test's rows. */
const freshKind = () => `test-${Date.now().toString(36)}-${kindCounter++}`;

function worker(handlers: Record<string, JobHandler>, leaseMs = 60_000): JobWorker {
  const w = new JobWorker({ handlers, pollMs: 20, leaseMs, log: () => undefined });
  workers.push(w);
  return w;
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`condition not met in ${timeoutMs} ms: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const row = (id: string) => db().job.findUniqueOrThrow({ where: { id } });

describe("claims and leases", () => {
  it("two workers racing for one job: exactly one claims it", async () => {
    const kind = freshKind();
    const job = await enqueueJob(kind, { n: 1 });
    const claims = await Promise.all([claimJob("w1", [kind]), claimJob("w2", [kind]), claimJob("w3", [kind])]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    const held = await row(job.id);
    expect(held.state).toBe("running");
    expect(held.attempts).toBe(1);
    expect(["w1", "w2", "w3"]).toContain(held.lockedBy);
  });

  it("a job whose lease expired (its worker died) is taken over", async () => {
    const kind = freshKind();
    const job = await enqueueJob(kind, {});
    expect(await claimJob("dead", [kind], 1500)).not.toBeNull();
    expect(await claimJob("alive", [kind], 1500)).toBeNull();
    await new Promise((r) => setTimeout(r, 1600));
    const taken = await claimJob("alive", [kind], 60_000);
    expect(taken?.id).toBe(job.id);
    expect((await row(job.id)).lockedBy).toBe("alive");
  });

  it("the same key is one job while it is pending", async () => {
    const kind = freshKind();
    const key = `k-${kind}`;
    const a = await enqueueJob(kind, { a: 1 }, { key });
    const b = await enqueueJob(kind, { a: 2 }, { key });
    expect(b.id).toBe(a.id);
    expect(await db().job.count({ where: { key } })).toBe(1);
  });

  it("backoff grows 4× per failed attempt", () => {
    expect([1, 2, 3].map((n) => retryDelayMs(n, 1000))).toEqual([1000, 4000, 16000]);
  });
});

describe("worker", () => {
  it("retries a failing job with backoff until it succeeds", async () => {
    const kind = freshKind();
    const runs: number[] = [];
    const w = worker({
      [kind]: {
        async run() {
          runs.push(Date.now());
          if (runs.length < 3) throw new Error(`flaky ${runs.length}`);
        },
      },
    });
    const job = await enqueueJob(kind, {});
    w.start();
    const done = await until(
      () => row(job.id),
      (r) => r.state === "done",
    );
    expect(done.attempts).toBe(3);
    expect(runs).toHaveLength(3);
    // 30 ms then 120 ms of backoff (JOB_RETRY_BASE_MS=30).
    expect(runs[1] - runs[0]).toBeGreaterThanOrEqual(25);
    expect(runs[2] - runs[1]).toBeGreaterThanOrEqual(110);
  });

  it("gives up after maxAttempts and calls onFailed once", async () => {
    const kind = freshKind();
    const failedWith: unknown[] = [];
    let runs = 0;
    const w = worker({
      [kind]: {
        async run() {
          runs++;
          throw new Error("always");
        },
        async onFailed(payload) {
          failedWith.push(payload);
        },
      },
    });
    const job = await enqueueJob(kind, { file: "x" }, { maxAttempts: 2 });
    w.start();
    const failed = await until(
      () => row(job.id),
      (r) => r.state === "failed",
    );
    await until(
      async () => failedWith.length,
      (n) => n === 1,
    );
    expect(failed.attempts).toBe(2);
    expect(failed.lastError).toBe("always");
    expect(runs).toBe(2);
    expect(failedWith).toEqual([{ file: "x" }]);
  });

  it("a permanent error fails at once", async () => {
    const kind = freshKind();
    const w = worker({ [kind]: { run: async () => Promise.reject(new PermanentJobError("corrupt")) } });
    const job = await enqueueJob(kind, {});
    w.start();
    const failed = await until(
      () => row(job.id),
      (r) => r.state === "failed",
    );
    expect(failed.attempts).toBe(1);
  });

  it("runs one job at a time (concurrency 1)", async () => {
    const kind = freshKind();
    let active = 0;
    let peak = 0;
    const w = worker({
      [kind]: {
        async run() {
          active++;
          peak = Math.max(peak, active);
          await new Promise((r) => setTimeout(r, 40));
          active--;
        },
      },
    });
    const jobs = await Promise.all([1, 2, 3].map(() => enqueueJob(kind, {})));
    w.start();
    await until(
      () => db().job.count({ where: { id: { in: jobs.map((j) => j.id) }, state: "done" } }),
      (n) => n === 3,
    );
    expect(peak).toBe(1);
  });

  it("survives a restart mid-queue: the running job goes back to the queue and the next worker completes it", async () => {
    const kind = freshKind();
    let started = 0;
    let completed = 0;
    const slow: JobHandler = {
      run: (_payload, { signal }) =>
        new Promise<void>((resolve, reject) => {
          started++;
          const t = setTimeout(() => {
            completed++;
            resolve();
          }, 300);
          signal.addEventListener("abort", () => {
            clearTimeout(t);
            reject(new Error("aborted"));
          });
        }),
    };
    const first = worker({ [kind]: slow });
    const jobs = await Promise.all([enqueueJob(kind, { n: 1 }), enqueueJob(kind, { n: 2 })]);
    first.start();
    await until(
      async () => started,
      (n) => n === 1,
    );
    await first.stop();
    const after = await db().job.findMany({ where: { id: { in: jobs.map((j) => j.id) } } });
    expect(after.map((j) => j.state)).toEqual(["queued", "queued"]);
    // The interrupted attempt does not count against the job.
    expect(after.map((j) => j.attempts)).toEqual([0, 0]);

    const second = worker({ [kind]: slow });
    second.start();
    await until(
      () => db().job.count({ where: { id: { in: jobs.map((j) => j.id) }, state: "done" } }),
      (n) => n === 2,
    );
    expect(completed).toBe(2);
  });
});
