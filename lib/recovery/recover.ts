/** Crash recovery at start-up and periodically (docs/crash-recovery.md); a live instance's leftovers are never touched. */
import { sweepDeletingAccounts, type AccountSweep } from "@/lib/accounts/delete";
import { env } from "@/lib/config/env";
import { recoverJobs } from "@/lib/jobs";
import { workerOwnerTag } from "@/lib/jobs/queue";
import { sweepExpiredPosts, type ExpirySweep } from "@/lib/posts/expiry";
import { ownerState } from "@/lib/files/owner-tag";
import { sweepPendingUploads, type PendingSweep } from "./pending-sweep";
import { sweepTempDirs, type TempSweep } from "./temp-sweep";
import { sweepExpiredResumables, type TusSweep } from "@/lib/uploads/resumable";

export interface RecoveryReport {
  temp: TempSweep;
  pending: PendingSweep;
  tus: TusSweep;
  jobs: { requeued: number; failed: number };
  /** Posts past their expiry deleted by this sweep (docs/expiry.md). */
  expired: ExpirySweep;
  /** Account deletions of processes that died, finished (docs/account-deletion.md). */
  accounts: AccountSweep;
}

/** Leftovers whose owner cannot be checked go after a day: far above the longest request. */
export const DEFAULT_ORPHAN_AGE_SECONDS = 24 * 3600;
export const DEFAULT_INTERVAL_SECONDS = 600;

export interface RecoverySettings {
  orphanAgeMs: number;
  intervalMs: number;
}

export function recoverySettings(): RecoverySettings {
  const e = env();
  return {
    orphanAgeMs: (e.RECOVERY_ORPHAN_AGE_SECONDS ?? DEFAULT_ORPHAN_AGE_SECONDS) * 1000,
    intervalMs: (e.RECOVERY_INTERVAL_SECONDS ?? DEFAULT_INTERVAL_SECONDS) * 1000,
  };
}

/** A job's worker is dead when its owner tag says so; untagged or foreign workers wait for their lease. */
const workerIsDead = (workerId: string): boolean => {
  const tag = workerOwnerTag(workerId);
  return tag !== null && ownerState(tag) === "dead";
};

export async function recoverLeftovers(settings: RecoverySettings = recoverySettings()): Promise<RecoveryReport> {
  const temp = await sweepTempDirs(settings.orphanAgeMs);
  const pending = await sweepPendingUploads(settings.orphanAgeMs);
  const tus = await sweepExpiredResumables();
  const jobs = await recoverJobs(workerIsDead);
  const accounts = await sweepDeletingAccounts(settings.orphanAgeMs);
  // Not a crash leftover, but periodic cleanup on the same timer: reads delete an expired
  // post they come across at once; this catches the ones nobody opens.
  const expired = await sweepExpiredPosts();
  return { temp, pending, tus, jobs, expired, accounts };
}

export function describeRecovery(r: RecoveryReport): string | null {
  const parts: string[] = [];
  if (r.temp.removed.length) parts.push(`${r.temp.removed.length} temporary directories (${r.temp.bytes} bytes)`);
  if (r.pending.uploads)
    parts.push(
      `${r.pending.uploads} unfinished uploads (${r.pending.objects} objects, ${r.pending.releasedBytes} bytes of quota given back)`,
    );
  if (r.tus.expired) parts.push(`${r.tus.expired} expired resumable uploads`);
  if (r.jobs.requeued) parts.push(`${r.jobs.requeued} jobs of dead workers requeued`);
  if (r.expired.removed) parts.push(`${r.expired.removed} expired posts deleted`);
  if (r.accounts.accounts) parts.push(`${r.accounts.accounts} interrupted account deletions finished`);
  if (r.jobs.failed) parts.push(`${r.jobs.failed} jobs of dead workers failed (no attempts left)`);
  return parts.length ? `recovered ${parts.join(", ")}` : null;
}

/** Awaited: nothing of a dead predecessor is left when the server starts serving. */
export async function startRecovery(log: (message: string) => void, settings: RecoverySettings = recoverySettings()): Promise<() => void> {
  const sweep = async (): Promise<void> => {
    try {
      const line = describeRecovery(await recoverLeftovers(settings));
      if (line) log(line);
    } catch (error) {
      // A failed sweep is retried by the next one; it must not stop the server.
      log(`recovery sweep failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  await sweep();
  if (settings.intervalMs <= 0) return () => undefined;
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void sweep().finally(() => (running = false));
  }, settings.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
