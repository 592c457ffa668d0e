/**
 * Crash recovery through the real production server (docs/crash-recovery.md): a server
 * child is killed with SIGKILL (with its ffmpeg children, as a container dies) in the
 * middle of an upload's body, between storing an upload's objects and writing its post
 * (disk, and S3 through s3rver), in the middle of a conversion and of an HLS job; each time
 * the next server starts on the same DATA_DIR, and nothing is left over: no temporary file,
 * no stored object, no journal row, usage as before, and the HLS job runs to the end.
 */
import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Plan } from "@/lib/plans";
import { createS3Client, S3Storage } from "@/lib/storage/s3";
import { ffmpeg, scratchDir } from "../support/media";
import { startTestServer, type TestServer } from "../support/server";
import { serverApp, serverUser } from "../support/server-accounts";

/** A user and an API key on the server's database. */
async function account(
  server: TestServer,
  env: Record<string, string>,
  username: string,
  plan: Plan = "free",
): Promise<{ key: string; subject: string }> {
  // The server's embedded database, as the CLI was pointed at it (DATA_DIR, no DATABASE_URL).
  const database = { env: { ...env, DATA_DIR: server.dataDir, DATABASE_URL: "" } };
  const user = await serverUser(database, username, plan);
  const app = await serverApp(database, username, "crash");
  return { key: app.key, subject: `u:${user.id}` };
}

/** Read-only looks at the server's SQLite database (WAL: never blocks the server). */
function database(dataDir: string): Database.Database {
  return new Database(join(dataDir, "mediahost.db"), { readonly: true, fileMustExist: true });
}
const count = (dataDir: string, sql: string, ...params: unknown[]): number => {
  const conn = database(dataDir);
  try {
    return (conn.prepare(sql).get(...params) as { n: number }).n;
  } finally {
    conn.close();
  }
};
const usage = (dataDir: string, subject: string): number =>
  count(dataDir, `SELECT COALESCE(SUM(bytes), 0) AS n FROM UsageWindow WHERE subject = ?`, subject);
const tempEntries = (dataDir: string): string[] => {
  const root = join(dataDir, "tmp");
  return existsSync(root) ? readdirSync(root) : [];
};

const BOUNDARY = "crashrecoveryboundary";
/** Sends a multipart upload whose body is `bytes`; `end: false` leaves the body unfinished. */
function sendUpload(
  url: string,
  headers: Record<string, string>,
  file: { name: string; type: string; bytes: Buffer },
  end = true,
): { done: Promise<number> } {
  const req = request(url, { method: "POST", headers: { ...headers, "content-type": `multipart/form-data; boundary=${BOUNDARY}` } });
  const done = new Promise<number>((resolve) => {
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    // The server is killed under it: the connection breaks.
    req.on("error", () => resolve(-1));
  });
  req.write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`);
  req.write(file.bytes);
  if (end) req.end(`\r\n--${BOUNDARY}--\r\n`);
  return { done };
}

async function until(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not reached in ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/**
 * Uploads `video` until one is caught between storing its objects and writing its post:
 * the server is frozen (SIGSTOP) the moment its journal row appears, and killed if the row
 * is still there (the post's transaction deletes it). Returns the row's storage keys.
 */
async function killBetweenStoreAndCommit(server: TestServer, key: string, video: Buffer): Promise<string[]> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const upload = sendUpload(
      `${server.url}/api/upload`,
      { "api-key": key, priority: "false" },
      { name: "v.mp4", type: "video/mp4", bytes: video },
    );
    const conn = database(server.dataDir);
    const pending = conn.prepare("SELECT keys FROM PendingUpload");
    let finished = false;
    void upload.done.then(() => (finished = true));
    let keys: string[] | null = null;
    try {
      while (!finished) {
        const row = pending.get() as { keys: string } | undefined;
        if (row) {
          process.kill(server.pid, "SIGSTOP");
          const still = pending.get() as { keys: string } | undefined;
          if (still) keys = JSON.parse(still.keys) as string[];
          else process.kill(server.pid, "SIGCONT");
          break;
        }
        await new Promise((r) => setImmediate(r));
      }
    } finally {
      conn.close();
    }
    if (keys) {
      await server.kill();
      return keys;
    }
    await upload.done;
  }
  throw new Error("no upload was caught between storing and its post in 5 attempts");
}

let video: Buffer;
let longMpeg2: string;
let hlsClip: string;
beforeAll(async () => {
  const dir = await scratchDir();
  // ~16 MB of H.264: storing it (fsync on disk, PUTs to S3) leaves a window to freeze the server in.
  const mp4 = join(dir, "crash-big.mp4");
  await ffmpeg([
    "-f",
    "lavfi",
    "-i",
    "testsrc2=size=1280x720:rate=30",
    "-t",
    "8",
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-b:v",
    "16M",
    "-pix_fmt",
    "yuv420p",
    mp4,
  ]);
  video = readFileSync(mp4);
  // MPEG-2 needs a transcode to H.264: a conversion that runs for a while.
  longMpeg2 = join(dir, "crash-long.mkv");
  await ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-t", "12", "-c:v", "mpeg2video", "-q:v", "4", longMpeg2]);
  // 12 s of 480p: its renditions take long enough to be caught mid-job, and no longer.
  hlsClip = join(dir, "crash-hls.mp4");
  await ffmpeg([
    "-f",
    "lavfi",
    "-i",
    "testsrc2=size=854x480:rate=30",
    "-t",
    "12",
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-pix_fmt",
    "yuv420p",
    hlsClip,
  ]);
}, 180_000);

describe("killed with SIGKILL and restarted on the same DATA_DIR (disk storage)", () => {
  const env = { DATABASE_URL: "", JOB_POLL_MS: "200", RECOVERY_INTERVAL_SECONDS: "0" };
  let server: TestServer | undefined;
  let user: { key: string; subject: string };
  beforeAll(async () => {
    server = await startTestServer(env);
    user = await account(server, env, "crash_disk");
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
  });
  const restart = async () => {
    const dataDir = server!.dataDir;
    server = await startTestServer(env, { dataDir });
    return server;
  };

  it("mid-upload body: the temporary part is removed at the next start, no post, usage unchanged", async () => {
    const s = server!;
    const before = usage(s.dataDir, user.subject);
    sendUpload(
      `${s.url}/api/upload`,
      { "api-key": user.key },
      { name: "big.mp4", type: "video/mp4", bytes: video.subarray(0, 8 << 20) },
      false,
    );
    const part = (): number => {
      for (const dir of tempEntries(s.dataDir)) {
        const path = join(s.dataDir, "tmp", dir, "part-0");
        if (existsSync(path)) return statSync(path).size;
      }
      return 0;
    };
    await until(() => part() > 4 << 20, "half the body on disk");
    await s.kill();
    expect(tempEntries(s.dataDir)).toHaveLength(1); // what the crash left

    const next = await restart();
    expect(tempEntries(next.dataDir)).toEqual([]);
    expect(count(next.dataDir, "SELECT COUNT(*) AS n FROM Post")).toBe(0);
    expect(usage(next.dataDir, user.subject)).toBe(before);
  }, 180_000);

  it("between storing the files and writing the post: the objects are deleted and the quota given back", async () => {
    const s = server!;
    const before = usage(s.dataDir, user.subject);
    const keys = await killBetweenStoreAndCommit(s, user.key, video);
    expect(usage(s.dataDir, user.subject)).toBeGreaterThan(before); // reserved when it died

    const next = await restart();
    for (const key of keys) expect(existsSync(join(next.dataDir, "files", ...key.split("/")))).toBe(false);
    // No temp file of the killed write either: the post's folder is gone.
    expect(existsSync(join(next.dataDir, "files", ...keys[0].split("/").slice(0, -1)))).toBe(false);
    expect(count(next.dataDir, "SELECT COUNT(*) AS n FROM PendingUpload")).toBe(0);
    expect(count(next.dataDir, "SELECT COUNT(*) AS n FROM Post")).toBe(0);
    expect(usage(next.dataDir, user.subject)).toBe(before);
    expect(tempEntries(next.dataDir)).toEqual([]);
  }, 180_000);

  it("mid-conversion (POST /convert): the conversion's temporary files are removed at the next start", async () => {
    const s = server!;
    const bytes = readFileSync(longMpeg2);
    void sendUpload(
      `${s.url}/api/convert`,
      { "api-key": user.key, "convert-target": "mp4" },
      { name: "long.mkv", type: "video/x-matroska", bytes },
    );
    // ffmpeg is writing its output beside the received part.
    await until(
      () => tempEntries(s.dataDir).some((d) => readdirSync(join(s.dataDir, "tmp", d)).length > 1),
      "the conversion's output started",
    );
    await s.kill();
    expect(tempEntries(s.dataDir).length).toBeGreaterThan(0);

    const next = await restart();
    expect(tempEntries(next.dataDir)).toEqual([]);
  }, 180_000);

  it("mid-HLS job: the job is queued again with the attempt counted and finishes; its temporary files are removed", async () => {
    const s = server!;
    const mp4 = readFileSync(hlsClip);
    const reply = await fetch(`${s.url}/api/upload`, {
      method: "POST",
      headers: { "api-key": user.key, "post-privacy": "unlisted" },
      body: (() => {
        const form = new FormData();
        form.append("file", new Blob([mp4], { type: "video/mp4" }), "clip.mp4");
        return form;
      })(),
    });
    expect(reply.status).toBe(200);
    const { post } = (await reply.json()) as { post: { code: string; files: { id: string }[] } };
    const used = usage(s.dataDir, user.subject);
    const running = () => count(s.dataDir, "SELECT COUNT(*) AS n FROM Job WHERE state = 'running'") === 1;
    // ffmpeg has started writing renditions in the job's temporary directory.
    const writing = () =>
      tempEntries(s.dataDir).some((d) => {
        const hls = join(s.dataDir, "tmp", d, "hls");
        return existsSync(hls) && readdirSync(hls).length > 0;
      });
    await until(() => running() && writing(), "the HLS job writing renditions");
    await s.kill();

    const next = await restart();
    const job = () => {
      const conn = database(next.dataDir);
      try {
        return conn.prepare("SELECT state, attempts FROM Job").get() as { state: string; attempts: number };
      } finally {
        conn.close();
      }
    };
    await until(() => job().state === "done", "the job done after the restart", 120_000);
    expect(job()).toEqual({ state: "done", attempts: 2 });
    const read = await fetch(`${next.url}/api/posts/${post.code}`, { headers: { "api-key": user.key } });
    expect(((await read.json()) as { post: { priority: boolean } }).post.priority).toBe(true);
    // Charged once: 12 s is one minute.
    expect(count(next.dataDir, "SELECT 60 - priorityMinutes AS n FROM User WHERE id = ?", user.subject.slice(2))).toBe(1);
    expect(usage(next.dataDir, user.subject)).toBe(used);
    await until(() => tempEntries(next.dataDir).length === 0, "no temporary directory left", 10_000);
  }, 240_000);
});

describe("killed between storing and writing the post, with S3 storage (s3rver)", () => {
  const BUCKET = "mediahost-crash";
  let s3rver: ChildProcess | undefined;
  let s3Dir = "";
  let server: TestServer | undefined;
  let s3: S3Storage;
  let env: Record<string, string>;
  beforeAll(async () => {
    s3Dir = mkdtempSync(join(tmpdir(), "mediahost-s3rver-"));
    s3rver = fork(fileURLToPath(new URL("../storage/s3rver-child.mjs", import.meta.url)), [s3Dir, BUCKET], {
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
    const [message] = (await once(s3rver, "message")) as [{ port: number }];
    const endpoint = `http://127.0.0.1:${message.port}`;
    env = {
      DATABASE_URL: "",
      RECOVERY_INTERVAL_SECONDS: "0",
      STORAGE: "s3",
      S3_BUCKET: BUCKET,
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
    };
    const config = { bucket: BUCKET, endpoint, accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
    s3 = new S3Storage({ ...config, client: createS3Client(config) });
    server = await startTestServer(env);
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    s3?.client.destroy();
    if (s3rver?.connected) {
      const exited = once(s3rver, "exit");
      s3rver.disconnect();
      await exited;
    }
    rmSync(s3Dir, { recursive: true, force: true });
  });

  it("the objects are deleted from the bucket and the quota given back at the next start", async () => {
    const s = server!;
    const user = await account(s, env, "crash_s3");
    const keys = await killBetweenStoreAndCommit(s, user.key, video);
    server = await startTestServer(env, { dataDir: s.dataDir });
    for (const key of keys) expect(await s3.stat(key)).toBeNull();
    expect(count(s.dataDir, "SELECT COUNT(*) AS n FROM PendingUpload")).toBe(0);
    expect(count(s.dataDir, "SELECT COUNT(*) AS n FROM Post")).toBe(0);
    expect(usage(s.dataDir, user.subject)).toBe(0);
    expect(tempEntries(s.dataDir)).toEqual([]);
  }, 180_000);
});
