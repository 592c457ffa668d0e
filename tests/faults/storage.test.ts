/**
 * A full files volume (docs/faults.md), through the production server: DATA_DIR/files is
 * a small tmpfs (mounted by the test; we run as root in CI, and the suite is skipped where
 * mounting is not allowed), nearly filled by a file of the test's own. Uploads go on until
 * the volume is full; then a one-file upload answers 503 `unavailable` with Retry-After, a
 * file of a multi-file upload that does not fit is listed in `failed` as `internal`, the
 * log names ENOSPC once per outage, and once there is room again uploads succeed. Then the
 * consistency check: every acknowledged post readable, usage equal to the bytes stored,
 * and nothing half-written on the volume. On SQLite, and on PostgreSQL with TEST_DATABASE_URL.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { serverUser, serverApp } from "../support/server-accounts";
import { type Acknowledged, acknowledged, checkConsistency, noisePng, outageLines, uploadRequest, within } from "../support/faults";

const REPLY_BOUND_MS = 5000;
const VOLUME = 4 * 1024 * 1024;
/** What the test's own file leaves free on the volume: room for a few uploads. */
const ROOM = 1024 * 1024;

/** A tmpfs of VOLUME bytes, or null where this process may not mount one. */
function mountVolume(): string | null {
  const dir = mkdtempSync(join(tmpdir(), "mediahost-full-volume-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${VOLUME}`, "tmpfs", dir], { stdio: "ignore" });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
}

const volume = mountVolume();

/** Every regular file under `dir`: its path relative to `dir` and its size. */
function filesUnder(dir: string, prefix = ""): { path: string; size: number }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path, `${prefix}${entry.name}/`);
    return [{ path: `${prefix}${entry.name}`, size: statSync(path).size }];
  });
}

describe.skipIf(!volume)("a full files volume", () => {
  let server: TestServer;
  let key: string;
  const acked: Acknowledged[] = [];
  const filler = join(volume ?? "", "filler");
  const files = join(volume ?? "", "files");

  beforeAll(async () => {
    // DATA_DIR/files is a link to the volume: the database (SQLite) and the uploads' temporary
    // files stay on the ordinary disk, as on a deployment with a separate files volume.
    mkdirSync(files);
    writeFileSync(filler, Buffer.alloc(VOLUME - ROOM));
    const dataDir = mkdtempSync(join(tmpdir(), "mediahost-server-"));
    symlinkSync(files, join(dataDir, "files"));
    server = await startTestServer({}, { dataDir });
    await serverUser(server, "fullvolume");
    key = (await serverApp(server, "fullvolume", "full", { galleryAccess: true })).key as string;
  }, 600_000);

  afterAll(async () => {
    await server?.stop();
    if (volume) {
      execFileSync("umount", [volume]);
      rmSync(volume, { recursive: true, force: true });
    }
  });

  it("a one-file upload that does not fit answers 503 unavailable with Retry-After; the log names ENOSPC once", async () => {
    let refused: Response | undefined;
    for (let attempt = 0; attempt < 12 && !refused; attempt++) {
      const reply = await within(REPLY_BOUND_MS, `${server.url}/api/upload`, uploadRequest([await noisePng(300)], key));
      if (reply.status === 200) acked.push(acknowledged(await reply.json()));
      else refused = reply;
    }
    expect(acked.length).toBeGreaterThan(0);
    expect(refused, "the volume never filled").toBeDefined();
    const text = await refused!.text();
    expect(refused!.status, text).toBe(503);
    expect(refused!.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(JSON.parse(text).error.type).toBe("unavailable");
    // Again, and with two files: still the one 503, still one log line.
    const again = await within(REPLY_BOUND_MS, `${server.url}/api/upload`, uploadRequest([await noisePng(300), await noisePng(300)], key));
    expect(again.status).toBe(503);
    expect(again.headers.get("retry-after")).toMatch(/^\d+$/);
    const { down, up } = outageLines(server.output(), "storage");
    expect(down).toHaveLength(1);
    expect(down[0]).toMatch(/ENOSPC/);
    expect(up).toHaveLength(0);
    // /healthz keeps the instance in rotation (reads go on) and says what is wrong.
    const health = await within(REPLY_BOUND_MS, `${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { detail: { storage: string } }).detail.storage).toMatch(/^full/);
  }, 120_000);

  it("with room again: a file of a multi-file upload that does not fit is `internal` in failed, the rest is stored", async () => {
    rmSync(filler);
    const reply = await within(REPLY_BOUND_MS, `${server.url}/api/upload`, uploadRequest([await noisePng(200), await noisePng(1400)], key));
    const body = (await reply.json()) as Parameters<typeof acknowledged>[0] & { failed: { index: number; error: { type: string } }[] };
    expect(reply.status, JSON.stringify(body)).toBe(200);
    expect(body.failed).toEqual([{ index: 1, error: expect.objectContaining({ type: "internal" }) }]);
    acked.push(acknowledged(body));
    // A file that fits: stored, and the outage's end logged.
    const fits = await within(REPLY_BOUND_MS, `${server.url}/api/upload`, uploadRequest([await noisePng(200)], key));
    expect(fits.status).toBe(200);
    acked.push(acknowledged(await fits.json()));
    const { down, up } = outageLines(server.output(), "storage");
    expect(up.length).toBe(down.length);
    expect(up.at(-1)).toMatch(/requests refused meanwhile$/);
  }, 120_000);

  it("afterwards: every acknowledged post is readable, usage equals the bytes on the volume, nothing half-written", async () => {
    const stored = await checkConsistency(server.url, key, acked);
    const onVolume = filesUnder(files);
    expect(onVolume.filter((f) => f.path.split("/").some((part) => part.startsWith(".")))).toEqual([]);
    expect(onVolume.reduce((sum, f) => sum + f.size, 0)).toBe(stored);
  }, 60_000);
});
