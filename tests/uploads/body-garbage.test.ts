/**
 * A large body must not set off full collections of the server's heap (lib/files/body-garbage.ts):
 * under scripts/start.ts's `--heap-growing-percent=50` each socket read's dead buffer counted
 * against the old generation's limit until a mark-compact, ~25 of them per GiB uploaded. Run in
 * a child process with the server's V8 flags; the bare pipeline beside it shows the trap is real
 * on this machine, so the check of ours can fail.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const CHILD = join(__dirname, "../support/body-garbage-child.ts");

async function receive(mode: "ours" | "plain"): Promise<{ major: number; minor: number }> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", "--max-semi-space-size=8", "--heap-growing-percent=50", CHILD, mode],
    { cwd: join(__dirname, "../.."), env: process.env },
  );
  return JSON.parse(stdout.trim().split("\n").pop()!) as { major: number; minor: number };
}

describe("a large request body and V8's heap", () => {
  it("256 MB through the resumable upload's receive start no full collection; a bare pipeline starts several", async () => {
    const plain = await receive("plain");
    const ours = await receive("ours");
    expect(plain.major).toBeGreaterThanOrEqual(3);
    expect(ours.major).toBeLessThanOrEqual(1);
    // Its scavenges: one per SCAVENGE_EVERY_BYTES (8 MiB), so 32 for 256 MiB, give or take V8's own.
    expect(ours.minor).toBeGreaterThanOrEqual(16);
  }, 60_000);
});
