/**
 * Who owns a temporary directory, a pending-upload row or a job lease, and whether that
 * owner still runs (docs/crash-recovery.md). Several instances may share DATA_DIR, /tmp and
 * the database, so a leftover is only reclaimed when its owner is known to be dead:
 *
 * - the owner tag names the machine (a hash of the host name), its boot (the kernel's
 *   boot_id), the PID namespace (containers on one kernel each have their own PIDs) and the
 *   process id;
 * - same machine, boot and namespace: the process is alive when signal 0 reaches it (a
 *   reused PID only makes us wait for the age threshold);
 * - same machine and namespace, another boot: dead (the machine restarted);
 * - anything else (another machine or container): unknown, reclaimed only past an age
 *   threshold well above the longest request (RECOVERY_ORPHAN_AGE_SECONDS).
 */
import { createHash } from "node:crypto";
import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";

export type OwnerState = "alive" | "dead" | "unknown";

export interface Owner {
  host: string;
  boot: string;
  pidns: string;
  pid: number;
}

/** Tags are used in file names: letters, digits and dots only. */
const TAG = /^([0-9a-f]{8})\.([0-9a-f]{8}|noboot)\.(\d+|nons)\.(\d+)$/;

function readOr(fallback: string, read: () => string): string {
  try {
    return read();
  } catch {
    return fallback;
  }
}

let self: Owner | undefined;
/** This process as an owner (read once: none of it changes while the process runs). */
export function currentOwner(): Owner {
  self ??= {
    host: createHash("sha256").update(hostname()).digest("hex").slice(0, 8),
    boot: readOr(
      "noboot",
      () =>
        readFileSync("/proc/sys/kernel/random/boot_id", "utf8")
          .replace(/[^0-9a-f]/g, "")
          .slice(0, 8) || "noboot",
    ),
    pidns: readOr("nons", () => /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1] ?? "nons"),
    pid: process.pid,
  };
  return self;
}

export const ownerTag = (owner: Owner = currentOwner()): string => `${owner.host}.${owner.boot}.${owner.pidns}.${owner.pid}`;

export function parseOwnerTag(tag: string): Owner | null {
  const m = TAG.exec(tag);
  return m ? { host: m[1], boot: m[2], pidns: m[3], pid: Number(m[4]) } : null;
}

/** Whether the process that wrote `tag` still runs, seen from this process. */
export function ownerState(tag: string, me: Owner = currentOwner()): OwnerState {
  const owner = parseOwnerTag(tag);
  if (!owner || owner.host !== me.host || owner.pidns !== me.pidns || owner.boot === "noboot") return "unknown";
  if (owner.boot !== me.boot) return "dead";
  if (owner.pid === me.pid) return "alive";
  try {
    process.kill(owner.pid, 0);
    return "alive";
  } catch (error) {
    // EPERM: a process with that id exists (someone else's): treat it as alive.
    return (error as NodeJS.ErrnoException).code === "ESRCH" ? "dead" : "alive";
  }
}

/**
 * Whether a leftover of `tag`, last touched at `modifiedMs`, may be reclaimed: its owner is
 * dead, or it cannot be checked and the leftover is older than `orphanAgeMs`.
 */
export function reclaimable(tag: string, modifiedMs: number, orphanAgeMs: number, now: number = Date.now()): boolean {
  const state = ownerState(tag);
  if (state === "dead") return true;
  if (state === "alive") return false;
  return now - modifiedMs > orphanAgeMs;
}
