/**
 * Background jobs as database rows, the only source of truth: a worker claims a job with one
 * conditional UPDATE taking a lease, so no two workers (on any instance) run the same job and
 * a crashed worker's job is taken again when its lease runs out.
 */
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import { env } from "@/lib/config/env";
import { db, type Tx } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/prisma-support";
import { ownerTag } from "@/lib/files/owner-tag";

export type JobState = "queued" | "running" | "done" | "failed";

export interface JobRow {
  id: string;
  kind: string;
  key: string | null;
  payload: string;
  state: string;
  attempts: number;
  maxAttempts: number;
  lastError: string | null;
}

export interface EnqueueOptions {
  /** While a job with this key exists it is returned instead of a new one. */
  key?: string;
  maxAttempts?: number;
  /** The job exists iff the caller's rows do. */
  tx?: Tx;
  runAt?: Date;
}

export const DEFAULT_MAX_ATTEMPTS = 4;
/** Renewed while running. */
export const DEFAULT_LEASE_MS = 60_000;

/** `<host>:<owner tag>:<random>`: the owner tag (lib/files/owner-tag.ts) tells a dead worker's job from a live one's before its lease ends. */
export const newWorkerId = (): string => `${hostname()}:${ownerTag()}:${randomBytes(3).toString("hex")}`;

export function workerOwnerTag(workerId: string): string | null {
  const parts = workerId.split(":");
  return parts.length >= 3 ? parts[parts.length - 2] : null;
}

export function retryDelayMs(failedAttempts: number, baseMs: number = retryBaseMs()): number {
  return Math.min(3_600_000, baseMs * 4 ** Math.max(0, failedAttempts - 1));
}

export const retryBaseMs = (): number => env().JOB_RETRY_BASE_MS ?? 10_000;

export async function enqueueJob(kind: string, payload: unknown, opts: EnqueueOptions = {}): Promise<JobRow> {
  const client = opts.tx ?? db();
  const data = {
    kind,
    key: opts.key ?? null,
    payload: JSON.stringify(payload),
    maxAttempts: opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    ...(opts.runAt ? { runAt: opts.runAt } : {}),
  };
  if (!opts.key) return client.job.create({ data });
  const existing = await client.job.findUnique({ where: { key: opts.key } });
  if (existing && (existing.state === "queued" || existing.state === "running")) return existing;
  if (existing) {
    return client.job.update({
      where: { id: existing.id },
      data: { ...data, state: "queued", attempts: 0, lastError: null, runAt: opts.runAt ?? new Date(), lockedBy: null, lockedUntil: null },
    });
  }
  try {
    return await client.job.create({ data });
  } catch (error) {
    // Another request enqueued the same key a moment ago: that job does the work.
    if (!opts.tx && isUniqueViolation(error)) return db().job.findUniqueOrThrow({ where: { key: opts.key } });
    throw error;
  }
}

function claimable(now: Date) {
  return {
    OR: [
      { state: "queued", runAt: { lte: now } },
      { state: "running", lockedUntil: { lt: now } },
    ],
  };
}

/** The UPDATE repeats the claimable condition, so of two workers racing for a row exactly one gets count 1. */
export async function claimJob(
  workerId: string,
  kinds: readonly string[],
  leaseMs = DEFAULT_LEASE_MS,
  jobId?: string,
): Promise<JobRow | null> {
  for (let tries = 0; tries < 5; tries++) {
    const now = new Date();
    const candidate = jobId
      ? { id: jobId }
      : await db().job.findFirst({
          where: { kind: { in: [...kinds] }, ...claimable(now) },
          orderBy: [{ runAt: "asc" }, { createdAt: "asc" }],
          select: { id: true },
        });
    if (!candidate) return null;
    const { count } = await db().job.updateMany({
      where: { id: candidate.id, kind: { in: [...kinds] }, ...claimable(now) },
      data: {
        state: "running",
        lockedBy: workerId,
        lockedAt: now,
        lockedUntil: new Date(now.getTime() + leaseMs),
        attempts: { increment: 1 },
      },
    });
    if (count === 1) return db().job.findUnique({ where: { id: candidate.id } });
    if (jobId) return null;
  }
  return null;
}

export async function renewLease(jobId: string, workerId: string, leaseMs = DEFAULT_LEASE_MS): Promise<boolean> {
  const { count } = await db().job.updateMany({
    where: { id: jobId, lockedBy: workerId, state: "running" },
    data: { lockedUntil: new Date(Date.now() + leaseMs) },
  });
  return count === 1;
}

export async function completeJob(jobId: string, workerId: string): Promise<boolean> {
  const { count } = await db().job.updateMany({
    where: { id: jobId, lockedBy: workerId, state: "running" },
    data: { state: "done", lockedBy: null, lockedUntil: null, lastError: null },
  });
  return count === 1;
}

/** Queued again after the backoff, or failed for good; null when this worker no longer held the job. */
export async function failJob(
  job: JobRow,
  workerId: string,
  message: string,
  permanent = false,
  delayMs: number = retryDelayMs(job.attempts),
): Promise<JobState | null> {
  const final = permanent || job.attempts >= job.maxAttempts;
  const { count } = await db().job.updateMany({
    where: { id: job.id, lockedBy: workerId, state: "running" },
    data: final
      ? { state: "failed", lockedBy: null, lockedUntil: null, lastError: message.slice(0, 2000) }
      : { state: "queued", lockedBy: null, lockedUntil: null, lastError: message.slice(0, 2000), runAt: new Date(Date.now() + delayMs) },
  });
  if (count !== 1) return null;
  return final ? "failed" : "queued";
}

export async function countJobsByState(): Promise<Record<string, number>> {
  const groups = await db().job.groupBy({ by: ["state"], _count: { _all: true } });
  return Object.fromEntries(groups.map((g) => [g.state, g._count._all]));
}

export async function releaseJob(jobId: string, workerId: string): Promise<void> {
  await db().job.updateMany({
    where: { id: jobId, lockedBy: workerId, state: "running" },
    data: { state: "queued", lockedBy: null, lockedUntil: null, attempts: { decrement: 1 }, runAt: new Date() },
  });
}

/** Jobs of dead workers: queued again at once instead of after their lease; a job out of attempts fails for good. */
export async function recoverDeadJobs(isDead: (workerId: string) => boolean): Promise<{ requeued: JobRow[]; failed: JobRow[] }> {
  const running = await db().job.findMany({ where: { state: "running" } });
  const requeued: JobRow[] = [];
  const failed: JobRow[] = [];
  for (const job of running) {
    if (!job.lockedBy || !isDead(job.lockedBy)) continue;
    const final = job.attempts >= job.maxAttempts;
    const { count } = await db().job.updateMany({
      // The same lockedBy: a worker that took the job over meanwhile keeps it.
      where: { id: job.id, state: "running", lockedBy: job.lockedBy },
      data: final
        ? {
            state: "failed",
            lockedBy: null,
            lockedUntil: null,
            lastError: "The worker running the job stopped (crash) on its last attempt.",
          }
        : {
            state: "queued",
            lockedBy: null,
            lockedUntil: null,
            runAt: new Date(),
            lastError: "The worker running the job stopped (crash).",
          },
    });
    if (count === 1) (final ? failed : requeued).push(job);
  }
  return { requeued, failed };
}
