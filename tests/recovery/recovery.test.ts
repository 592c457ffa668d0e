/**
 * The pieces of crash recovery on the real test database and disk (docs/crash-recovery.md):
 * who owns a leftover, the temp-directory sweep, the pending-upload journal and its sweep,
 * and jobs of dead workers. tests/server/crash-recovery.test.ts kills real servers.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, readdir, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { dataDir } from "@/lib/db/config";
import { enqueueJob } from "@/lib/jobs/queue";
import { HLS_JOB, hlsJobKey } from "@/lib/jobs/hls-job";
import { currentOwner, ownerState, ownerTag, reclaimable } from "@/lib/files/owner-tag";
import { parseEnv } from "@/lib/config/env";
import { recoverLeftovers, recoverySettings, startRecovery } from "@/lib/recovery/recover";
import { sweepTempDirs } from "@/lib/recovery/temp-sweep";
import { storage } from "@/lib/storage";
import { withTempDir } from "@/lib/files/temp";
import { abandonPending, journalPending } from "@/lib/uploads/quota";
import { reserveQuota } from "@/lib/usage/reserve";
import { weekWindow } from "@/lib/usage/window";
import { useTestDatabase } from "../support/db";
import { createTestPost, createTestUser } from "../support/fixtures";

useTestDatabase();

const HOUR = 3_600_000;
const settings = { orphanAgeMs: 24 * HOUR, intervalMs: 0 };

/** The tag of a process of this machine that ran and exited. */
async function deadTag(): Promise<string> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(child, "exit");
  return ownerTag({ ...currentOwner(), pid: child.pid! });
}
const foreignTag = (): string => ownerTag({ ...currentOwner(), host: "0badc0de" });
const rebootedTag = (): string => ownerTag({ ...currentOwner(), boot: currentOwner().boot === "00000000" ? "11111111" : "00000000" });

async function usedBytes(subject: string): Promise<bigint> {
  const row = await db().usageWindow.findUnique({ where: { subject_windowStart: { subject, windowStart: weekWindow().start } } });
  return row?.bytes ?? 0n;
}

describe("owners", () => {
  it("this process is alive, an exited one dead, one of a previous boot dead, another machine's unknown", async () => {
    expect(ownerState(ownerTag())).toBe("alive");
    expect(ownerState(await deadTag())).toBe("dead");
    expect(ownerState(rebootedTag())).toBe("dead");
    expect(ownerState(foreignTag())).toBe("unknown");
    expect(ownerState("not a tag")).toBe("unknown");
  });

  it("a leftover is reclaimable when its owner is dead, or unknown and older than the orphan age; never when alive", async () => {
    const now = Date.now();
    expect(reclaimable(await deadTag(), now, HOUR, now)).toBe(true);
    expect(reclaimable(foreignTag(), now - 2 * HOUR, HOUR, now)).toBe(true);
    expect(reclaimable(foreignTag(), now - HOUR / 2, HOUR, now)).toBe(false);
    expect(reclaimable(ownerTag(), now - 100 * HOUR, HOUR, now)).toBe(false);
  });
});

describe("temporary directories", () => {
  it("withTempDir names its directory after this process", async () => {
    const name = await withTempDir(async (dir) => dir.split("/").pop()!);
    expect(name.startsWith(`req-${ownerTag()}-`)).toBe(true);
  });

  it("the sweep removes dead processes' directories and old ones it cannot check; live, recent foreign and unknown names stay", async () => {
    const root = join(dataDir(), "tmp-sweep-test");
    const old = (Date.now() - 48 * HOUR) / 1000;
    const make = async (name: string, age?: number) => {
      await mkdir(join(root, name), { recursive: true });
      await writeFile(join(root, name, "part-0"), Buffer.alloc(1000));
      if (age) await utimes(join(root, name), age, age);
    };
    const dead = await deadTag();
    await make(`req-${dead}-aaaaaa`);
    await make(`req-${rebootedTag()}-bbbbbb`);
    await make(`req-${ownerTag()}-cccccc`, old); // alive: kept however old
    await make(`req-${foreignTag()}-dddddd`); // another machine's, recent
    await make(`req-${foreignTag()}-eeeeee`, old); // another machine's, old
    await make("req-ffffff", old); // made before names carried tags, old
    await make("req-gggggg"); // the same, recent
    await make("someone-elses", old);
    const swept = await sweepTempDirs(24 * HOUR, root);
    expect(swept.removed.sort()).toEqual(
      [`req-${dead}-aaaaaa`, `req-${rebootedTag()}-bbbbbb`, `req-${foreignTag()}-eeeeee`, "req-ffffff"].sort(),
    );
    expect(swept.bytes).toBe(4000);
    expect((await readdir(root)).sort()).toEqual(
      [`req-${ownerTag()}-cccccc`, `req-${foreignTag()}-dddddd`, "req-gggggg", "someone-elses"].sort(),
    );
  });
});

describe("the pending-upload journal", () => {
  it("a file's row goes in with its reservation; given up, its bytes come back once", async () => {
    const user = await createTestUser();
    const subject = `u:${user.id}`;
    const reservation = await reserveQuota(subject, 500, 10_000, new Date(), journalPending("file-a", ["p/x/file-a.png"]));
    expect(await db().pendingUpload.findUnique({ where: { id: "file-a" } })).toMatchObject({ owner: ownerTag(), bytes: 500n, subject });
    expect(await usedBytes(subject)).toBe(500n);
    await abandonPending("file-a", reservation);
    await abandonPending("file-a", reservation);
    expect(await usedBytes(subject)).toBe(0n);
    expect(await db().pendingUpload.count({ where: { id: "file-a" } })).toBe(0);
  });

  it("a refused reservation writes no row", async () => {
    const user = await createTestUser();
    await expect(
      reserveQuota(`u:${user.id}`, 20_000, 10_000, new Date(), journalPending("file-b", ["p/x/file-b.png"])),
    ).rejects.toMatchObject({
      type: "quota_exceeded",
    });
    expect(await db().pendingUpload.count({ where: { id: "file-b" } })).toBe(0);
  });

  it("the sweep deletes a dead process's stored objects and gives its bytes back; a live process's row stays", async () => {
    const user = await createTestUser();
    const subject = `u:${user.id}`;
    const window = weekWindow();
    await reserveQuota(subject, 300, 10_000); // an upload that committed: stays charged
    const orphanKeys = ["p/dead/f1.png", "p/dead/f1.thumb.jpg"];
    for (const key of orphanKeys) await storage().putBuffer(key, Buffer.from("bytes"), key.endsWith(".png") ? "image/png" : "image/jpeg");
    // What a killed put leaves on disk beside the key: its temp file.
    await writeFile(join(dataDir(), "files", "p", "dead", ".f1.png.0123456789ab.tmp"), "half");
    await reserveQuota(subject, 700, 10_000);
    await db().pendingUpload.create({
      data: { id: "f1", owner: await deadTag(), keys: JSON.stringify(orphanKeys), subject, windowStart: window.start, bytes: 700n },
    });
    await storage().putBuffer("p/live/f2.png", Buffer.from("bytes"), "image/png");
    await reserveQuota(subject, 50, 10_000);
    await db().pendingUpload.create({
      data: { id: "f2", owner: ownerTag(), keys: JSON.stringify(["p/live/f2.png"]), subject, windowStart: window.start, bytes: 50n },
    });
    expect(await usedBytes(subject)).toBe(1050n);

    const report = await recoverLeftovers(settings);
    expect(report.pending).toEqual({ uploads: 1, objects: 2, releasedBytes: 700 });
    for (const key of orphanKeys) expect(await storage().stat(key)).toBeNull();
    await expect(readdir(join(dataDir(), "files", "p", "dead"))).rejects.toMatchObject({ code: "ENOENT" });
    expect(await storage().stat("p/live/f2.png")).not.toBeNull();
    expect(await usedBytes(subject)).toBe(350n);
    expect((await db().pendingUpload.findMany({ where: { subject } })).map((r) => r.id)).toEqual(["f2"]);

    // A second sweep (another instance, or the next period) finds nothing more to give back.
    expect((await recoverLeftovers(settings)).pending.uploads).toBe(0);
    expect(await usedBytes(subject)).toBe(350n);
  });
});

describe("jobs of dead workers", () => {
  it("are queued again at once with the dead attempt counted; on their last attempt they fail and clean up", async () => {
    const user = await createTestUser();
    const post = await createTestPost(user.id, { mimeType: "video/mp4" });
    const file = await db().file.findFirstOrThrow({ where: { postId: post.id } });
    await db().file.update({ where: { id: file.id }, data: { priority: true, streamState: "processing" } });
    const lease = new Date(Date.now() + HOUR);
    const dead = `somehost:${await deadTag()}:abcdef`;
    const retried = await enqueueJob(HLS_JOB, { fileId: file.id }, { key: hlsJobKey(file.id) });
    await db().job.update({ where: { id: retried.id }, data: { state: "running", attempts: 1, lockedBy: dead, lockedUntil: lease } });
    const exhausted = await enqueueJob(HLS_JOB, { fileId: file.id });
    await db().job.update({
      where: { id: exhausted.id },
      data: { state: "running", attempts: 4, maxAttempts: 4, lockedBy: dead, lockedUntil: lease },
    });
    const live = await enqueueJob("other-kind", {});
    await db().job.update({
      where: { id: live.id },
      data: { state: "running", attempts: 1, lockedBy: `somehost:${ownerTag()}:abcdef`, lockedUntil: lease },
    });
    const foreign = await enqueueJob("other-kind", {});
    await db().job.update({
      where: { id: foreign.id },
      data: { state: "running", attempts: 1, lockedBy: `elsewhere:${foreignTag()}:abcdef`, lockedUntil: lease },
    });

    const report = await recoverLeftovers(settings);
    expect(report.jobs).toEqual({ requeued: 1, failed: 1 });
    expect(await db().job.findUnique({ where: { id: retried.id } })).toMatchObject({ state: "queued", attempts: 1, lockedBy: null });
    expect(await db().job.findUnique({ where: { id: exhausted.id } })).toMatchObject({ state: "failed", attempts: 4 });
    // The failed job's clean-up ran: the video is back on standard delivery.
    expect(await db().file.findUnique({ where: { id: file.id } })).toMatchObject({ streamState: "failed" });
    // A live worker's job, and one whose worker cannot be checked, keep their lease.
    expect(await db().job.findUnique({ where: { id: live.id } })).toMatchObject({ state: "running" });
    expect(await db().job.findUnique({ where: { id: foreign.id } })).toMatchObject({ state: "running" });
  });
});

describe("when sweeps run", () => {
  it("settings: every 600 s, orphans of unknown owners after 24 h; RECOVERY_* override, bad values are refused", () => {
    expect(recoverySettings()).toEqual({ orphanAgeMs: 24 * HOUR, intervalMs: 600_000 });
    expect(parseEnv({ NODE_ENV: "test", RECOVERY_INTERVAL_SECONDS: "0", RECOVERY_ORPHAN_AGE_SECONDS: "7200" })).toMatchObject({
      RECOVERY_INTERVAL_SECONDS: 0,
      RECOVERY_ORPHAN_AGE_SECONDS: 7200,
    });
    expect(() => parseEnv({ NODE_ENV: "test", RECOVERY_ORPHAN_AGE_SECONDS: "5" })).toThrow();
    expect(() => parseEnv({ NODE_ENV: "test", RECOVERY_INTERVAL_SECONDS: "soon" })).toThrow();
  });

  it("at start and then periodically: a dead process's directory made after the start is gone by the next sweep", async () => {
    const root = join(dataDir(), "tmp");
    const lines: string[] = [];
    const first = join(root, `req-${await deadTag()}-first1`);
    await mkdir(first, { recursive: true });
    const stop = await startRecovery((line) => lines.push(line), { orphanAgeMs: 24 * HOUR, intervalMs: 50 });
    try {
      // The start-up sweep has run when startRecovery resolves.
      expect((await readdir(root)).includes(`req-${first.split("req-")[1]}`)).toBe(false);
      const later = `req-${await deadTag()}-later1`;
      await mkdir(join(root, later));
      const end = Date.now() + 10_000;
      while ((await readdir(root)).includes(later)) {
        if (Date.now() > end) throw new Error("the periodic sweep did not run");
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(lines.some((l) => l.startsWith("recovered 1 temporary directories"))).toBe(true);
    } finally {
      stop();
    }
  });
});
