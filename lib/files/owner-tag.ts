/**
 * Who owns a temporary directory, a pending-upload row or a job lease, and whether it still runs
 * (docs/crash-recovery.md). Instances may share DATA_DIR, /tmp and the database, so the tag names
 * machine, boot and PID namespace too: a leftover is reclaimed only when its owner is known dead,
 * or, when that cannot be checked (another machine or container), past an age threshold.
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

export function reclaimable(tag: string, modifiedMs: number, orphanAgeMs: number, now: number = Date.now()): boolean {
  const state = ownerState(tag);
  if (state === "dead") return true;
  if (state === "alive") return false;
  return now - modifiedMs > orphanAgeMs;
}
