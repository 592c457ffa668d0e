/**
 * Where it runs (docs/deploy.md): plain `next start` on a fresh DATA_DIR, with the
 * background work in `npm run worker`. Before `npm run db:migrate`, /healthz and every route
 * that needs the database answer 503 naming the command (never a 500); after it, a video
 * upload becomes a ready stream (the worker's job), an expiring post goes 404, a /cdn read
 * carries the right Content-Length and none of our internal headers, a client cannot name
 * its own address, an early reply lingers on the body it did not read, and /cron runs only
 * with its bearer secret.
 */
import { spawn, type ChildProcess, execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ensureBuild } from "@/lib/server/build";
import { fixture } from "../support/media";
import { freePort, services } from "../support/server";
import { serverUser, serverApp } from "../support/server-accounts";
import { until } from "../support/tus";
import { closingRequest, sendUnread } from "../support/unread-body";

vi.setConfig({ testTimeout: 240_000 });

const root = fileURLToPath(new URL("../..", import.meta.url));
const CRON_SECRET = "cron-secret-for-tests";
let dataDir: string;
let base: string;
let env: NodeJS.ProcessEnv;
let drop: () => Promise<void>;
const children: ChildProcess[] = [];

/** Starts a child and resolves once a line of its output matches `ready`. */
function startChild(args: string[], ready: RegExp): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let output = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (ready.test(output)) resolve(child);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", (code) => reject(new Error(`${args.join(" ")} exited (${code}):\n${output}`)));
  });
}

beforeAll(async () => {
  await ensureBuild(root, { stdio: "pipe" });
  const external = await services();
  drop = external.drop;
  dataDir = mkdtempSync(join(tmpdir(), "mediahost-next-start-"));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST")));
  env = {
    ...inherited,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    DATA_DIR: dataDir,
    PUBLIC_URL: base,
    CRON_SECRET,
    RECOVERY_INTERVAL_SECONDS: "1",
    // The polls below read one post many times: not the rate limits' business here.
    RATE_LIMIT_SCALE: "100",
    ...external.env,
  };
  await startChild([join(root, "node_modules", "next", "dist", "bin", "next"), "start", "-p", String(port), "-H", "127.0.0.1"], /Ready in/);
}, 600_000);

afterAll(async () => {
  for (const child of children) {
    const exited = new Promise((done) => child.once("exit", done));
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
  await drop?.();
});

describe("before npm run db:migrate", () => {
  it("/healthz is 503 with the reason, and the API answers 503 unavailable naming the command", async () => {
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(503);
    expect(((await health.json()) as { reason: string }).reason).toMatch(/pending migrations; run `npm run db:migrate`/);
    const read = await fetch(`${base}/api/users/@me`, { headers: { "api-key": "nokey" } });
    expect(read.status).toBe(503);
    const body = (await read.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe("unavailable");
    expect(body.error.message).toMatch(/npm run db:migrate/);
  });
});

describe("after it, with npm run worker beside next start", () => {
  let key: string;
  beforeAll(async () => {
    await promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/migrate.ts"], { cwd: root, env });
    await startChild(["scripts/launch.mjs", "worker"], /^worker running/m);
    const server = { env: { DATA_DIR: dataDir, DATABASE_URL: env.DATABASE_URL ?? "", REDIS_URL: env.REDIS_URL ?? "" } };
    await serverUser(server, "nextstart", "free");
    key = (await serverApp(server, "nextstart", "t", { galleryAccess: true })).key as string;
  }, 300_000);

  const upload = async (headers: Record<string, string> = {}) => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(await readFile(await fixture("mp4")))], { type: "video/mp4" }), "clip.mp4");
    const reply = await fetch(`${base}/api/upload`, { method: "POST", headers: { "api-key": key, ...headers }, body: form });
    const text = await reply.text();
    expect(reply.status, text).toBe(200);
    return (JSON.parse(text) as { post: { code: string; files: { url: string; size: number }[] } }).post;
  };
  const readPost = (code: string) => fetch(`${base}/api/posts/${code}`, { headers: { "api-key": key } });

  it("/healthz says ok", async () => {
    const health = await fetch(`${base}/healthz`);
    expect(await health.json()).toEqual({ status: "ok" });
  });

  it("a video upload becomes a ready stream: the worker ran its job", async () => {
    const post = await upload({ "post-privacy": "public" });
    const ready = await until(
      async () =>
        ((await (await readPost(post.code)).json()) as { post: { files: { stream_state: string }[] } }).post.files[0].stream_state,
      (state) => state === "ready",
      200_000,
    );
    expect(ready).toBe("ready");
  });

  it("a /cdn read has the right Content-Length and none of our internal headers", async () => {
    const post = await upload();
    const file = await fetch(post.files[0].url);
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(file.status).toBe(200);
    expect(file.headers.get("content-length")).toBe(String(bytes.length));
    expect(bytes.length).toBe(post.files[0].size);
    expect([...file.headers.keys()].filter((name) => name.startsWith("x-mediahost-"))).toEqual([]);
  });

  it("an expiring post goes 404", async () => {
    // No check of the post before its expiry: on a busy machine the upload itself may outlast it.
    const post = await upload({ "expires-at": new Date(Date.now() + 3000).toISOString() });
    const gone = await until(
      async () => (await readPost(post.code)).status,
      (status) => status === 404,
      30_000,
    );
    expect(gone).toBe(404);
  });

  it("the client address is the socket's, whatever the client names in x-client-ip or X-Forwarded-For", async () => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(await readFile(await fixture("png")))], { type: "image/png" }), "shot.png");
    const reply = await fetch(`${base}/api/upload`, { method: "POST", headers: { "api-key": key, "post-privacy": "public" }, body: form });
    const { post } = (await reply.json()) as { post: { code: string } };
    // Views count at most 3 per address per post per hour: five views from five claimed
    // addresses are five only if the claims were believed.
    const person = "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0";
    for (let i = 1; i <= 5; i++) {
      const page = await fetch(`${base}/p/${post.code}`, {
        headers: { "user-agent": person, "x-client-ip": `203.0.113.${i}`, "x-forwarded-for": `198.51.100.${i}` },
      });
      expect(page.status).toBe(200);
      await page.text();
    }
    const views = async () => ((await (await readPost(post.code)).json()) as { post: { view_count: number } }).post.view_count;
    expect(await until(views, (n) => n >= 3)).toBe(3);
    // The views are written after each page is sent: give any late ones time to land.
    await new Promise((done) => setTimeout(done, 1000));
    expect(await views()).toBe(3);
  });

  it("a reply sent before the body was read reaches a client still sending it (lingering close, lib/server/linger.ts)", async () => {
    // Next's own route handler answers the upload without a key at once; the 24 MiB body
    // the client goes on sending must not reset the connection before the 401 is read.
    const outcome = await sendUnread(base, closingRequest("POST", "/api/upload"));
    expect(outcome.writeError).toBeNull();
    expect(outcome.statusLine.startsWith("HTTP/1.1 401"), outcome.statusLine).toBe(true);
  });

  it("/cron runs once with its bearer secret, and refuses without it", async () => {
    expect((await fetch(`${base}/cron`)).status).toBe(401);
    expect((await fetch(`${base}/cron`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
    const ran = await fetch(`${base}/cron`, { headers: { authorization: `Bearer ${CRON_SECRET}` } });
    expect(ran.status).toBe(200);
    expect(await ran.json()).toMatchObject({ status: "ok" });
  });
});
