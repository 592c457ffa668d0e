/**
 * BullMQ as the wake-up channel between instances (REDIS_URL set). The Job row stays the
 * source of truth: a BullMQ message only carries a row id, and the worker that receives
 * it still claims the row with the lease of queue.ts. A lost message delays a job until
 * the next poll of the table; a duplicate one finds the row already claimed or done.
 */
import type { Queue as BullQueue, Worker as BullWorker } from "bullmq";
import { env } from "@/lib/config/env";
import { markDown, markUp } from "@/lib/faults/outages";

/**
 * bullmq is loaded at run time from node_modules, only when REDIS_URL is set, and kept
 * out of the Next.js bundles (which also compile this module through the upload route):
 * it is server-only code with child-process helpers a bundler has no business inlining.
 */
const loadBullmq = (): Promise<typeof import("bullmq")> => import(/* webpackIgnore: true */ /* turbopackIgnore: true */ "bullmq");

/** One queue per deployment; JOB_QUEUE_NAME separates deployments (or test runs) sharing a Redis. */
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

/** A publisher, plus a consumer calling `consume(rowId)` for each message when it is given. */
export function openBullTransport(url: string, consume?: (jobId: string) => Promise<void>, name: string = queueName()): BullTransport {
  const opened = loadBullmq().then(({ Queue, Worker }) => {
    const queue: BullQueue = new Queue(name, { connection: connection(url) });
    // ioredis reports every failed reconnect: folded into one line per outage and one when
    // it is back (lib/faults/outages.ts, docs/faults.md). The Job rows carry on meanwhile.
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
