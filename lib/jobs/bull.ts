/**
 * BullMQ as the wake-up channel between instances: a message only carries a row id, the Job
 * row stays the truth, so a lost message waits for the next poll and a duplicate finds the row claimed.
 */
import type { Queue as BullQueue, Worker as BullWorker } from "bullmq";
import { env } from "@/lib/config/env";
import { markDown, markUp } from "@/lib/faults/outages";

/** Loaded at run time, only with REDIS_URL, and kept out of the Next.js bundles (child-process helpers no bundler should inline). */
const loadBullmq = (): Promise<typeof import("bullmq")> => import(/* webpackIgnore: true */ /* turbopackIgnore: true */ "bullmq");

/** JOB_QUEUE_NAME separates deployments (or test runs) sharing a Redis. */
export const queueName = (): string => env().JOB_QUEUE_NAME ?? "mediahost-jobs";

export interface BullTransport {
  publish(jobId: string, delayMs?: number): Promise<void>;
  close(): Promise<void>;
}

function connection(url: string) {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.pathname.length > 1 ? { db: Number(u.pathname.slice(1)) } : {}),
    ...(u.protocol === "rediss:" ? { tls: {} } : {}),
    // BullMQ workers block on Redis; ioredis must not give up on those commands.
    maxRetriesPerRequest: null,
  };
}

export function openBullTransport(url: string, consume?: (jobId: string) => Promise<void>, name: string = queueName()): BullTransport {
  const opened = loadBullmq().then(({ Queue, Worker }) => {
    const queue: BullQueue = new Queue(name, { connection: connection(url) });
    // Every failed reconnect folded into one line per outage (docs/faults.md); the Job rows carry on.
    queue.on("error", (e) => markDown("redis", e));
    const worker: BullWorker | undefined = consume
      ? new Worker(name, async (job) => consume(String((job.data as { id?: unknown }).id ?? "")), {
          connection: connection(url),
          concurrency: 1,
        })
      : undefined;
    worker?.on("error", (e) => markDown("redis", e));
    return { queue, worker };
  });
  return {
    async publish(jobId, delayMs = 0) {
      const { queue } = await opened;
      await queue.add("run", { id: jobId }, { delay: delayMs, removeOnComplete: true, removeOnFail: true });
      markUp("redis");
    },
    async close() {
      const { queue, worker } = await opened;
      await Promise.allSettled([worker?.close(), queue.close()]);
    },
  };
}
