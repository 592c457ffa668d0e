/**
 * bench:serve — the read path of the production server under load (issue 7).
 *
 *   node --import tsx bench/serve.ts [--duration 15] [--rounds 2] [--postgres] [--cpu-prof]
 *
 * Starts the production server (scripts/start.ts, the built app) with the embedded
 * defaults (SQLite under a fresh DATA_DIR), or with `--postgres` (or DATABASE_URL set to a
 * postgresql:// URL; default postgresql://postgres@127.0.0.1:5432/test) on a fresh schema
 * `bench_<pid>` of that database, dropped at the end. It seeds, through the admin CLI and
 * the API: an Ultra user with an app key; a public post with a ~100 KB JPEG (noise, so it
 * does not compress small); a private post with the same JPEG (its signed file URL comes
 * from the post in the upload reply); a public post with a ~4 MB H.264 MP4 uploaded with
 * `priority: false` (standard delivery: no HLS job competes for the CPU).
 *
 * Then, with autocannon (programmatic, in this process; the servers are child processes;
 * loopback only), 50 connections for `--duration` seconds each, after a warm-up of each:
 *
 *   bare_file      reference: a bare node:http server streaming the same JPEG (the bytes
 *                  /cdn served) from disk with fs.createReadStream
 *   cdn            GET the public image's direct URL (/cdn/..., files[0].url)
 *   signed         GET the private image's signed URL
 *   range          GET the video's file URL with `Range: bytes=0-1048575` (expects 206)
 *   bare_json      reference: a bare node:http server answering a fixed body of the same
 *                  bytes as the post reply
 *   post           GET /api/posts/{code} with an `api-key`
 *   share_crawler  GET /p/{code} as Discordbot/2.0
 *   share_browser  GET /p/{code} as desktop Chrome
 *
 * The references send the same response headers as ours (names and values copied from a
 * reply of ours, fixed), so header bytes are alike, and bare_json gets the same requests as
 * post (a different api-key on each, which it ignores), so the load generator, which shares
 * the machine, does the same work on both sides. GET /posts/{code} is limited to 20
 * requests per 30 s per user (interface.md, "Limits"), so its requests rotate over a pool
 * of readers, one key each, each used at most up to its limit within one window; the pool
 * grows with the measured throughput, and before each measured run every key is used once
 * (untimed; reported as `post_cold_key_rps`), so the server's key cache is warm as it is for
 * readers who come back. Every response's status is checked: a run with any
 * unexpected status or connection error is flagged in the output (and a 404 share page is
 * measured but marked as such).
 *
 * Rounds alternate reference and ours (`--rounds`, default 2) so other load on a shared
 * machine hits both alike; per target the round with the highest req/s counts, and its p50
 * and p99. Latencies are the client's, per response, in ms (not autocannon's whole-ms
 * histogram). The server's RSS is sampled every 50 ms from /proc (plus its VmHWM after a
 * reset) from the first warm-up to the last run. `--cpu-prof` runs the server under
 * `node --cpu-prof` and keeps the profile (path printed).
 *
 * Inputs are cached in $TMPDIR/mediahost-bench/; every data directory and the PostgreSQL
 * schema are removed at the end, also on failure. The last line of stdout is one JSON
 * object with every figure.
 */
import { execFile } from "node:child_process";
import { createReadStream, readFileSync, statSync, writeFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer as createHttpServer, type OutgoingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";
import autocannon from "autocannon";
import { cached, ffmpeg } from "./support/inputs";
import { CACHE_DIR, log, machine, mark, MiB, mib, onCleanup, ROOT, round, runBench, sleep, tempDir, timeBudget } from "./support/run";
import { baseEnv, spawnListening, startServer, statusField, type Child, type Server } from "./support/server";

const CONNECTIONS = 50;
const DEFAULT_DURATION_S = 15;
const DEFAULT_ROUNDS = 2;
const JPEG_TARGET_BYTES = 100 * 1024;
/** At least 2 MiB, so a 1 MiB range is a real part of the file. */
const VIDEO_MIN_BYTES = 2 * MiB;
const RANGE_BYTES = MiB;
const RSS_SAMPLE_MS = 50;
const PG_DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test";
const CRAWLER_UA = "Discordbot/2.0";
const BROWSER_UA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
/** A server that cannot start (the tree may be mid-change) is retried after this. */
const START_ATTEMPTS = 3;
const START_RETRY_MS = 60_000;

const TARGETS = { cdn_ratio: 0.5, cdn_p99_ratio: 2, signed_ratio: 0.45, post_ratio: 0.25, share_crawler_over_post: 3, peak_rss_mb: 400 } as const;

interface Options {
  durationS: number;
  rounds: number;
  postgresUrl: string | null;
  profileDir: string | null;
}

function parseOptions(argv: string[]): Options {
  const value = (flag: string): string | undefined => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const positive = (flag: string, fallback: number): number => {
    const raw = value(flag);
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(n) || n < 1) {
      console.error("usage: node --import tsx bench/serve.ts [--duration seconds] [--rounds n] [--postgres] [--cpu-prof]");
      process.exit(64);
    }
    return n;
  };
  const envPg = /^postgres(ql)?:\/\//i.test(process.env.DATABASE_URL ?? "") ? (process.env.DATABASE_URL ?? null) : null;
  return {
    durationS: positive("--duration", DEFAULT_DURATION_S),
    rounds: positive("--rounds", DEFAULT_ROUNDS),
    postgresUrl: envPg ?? (argv.includes("--postgres") ? PG_DEFAULT_URL : null),
    profileDir: argv.includes("--cpu-prof") ? join(CACHE_DIR, `profiles-serve-${Date.now()}`) : null,
  };
}

// ---------------------------------------------------------------------------------------
// The references: one bare node:http child serving /file and /json

interface BareConfig {
  file: string;
  fileHeaders: OutgoingHttpHeaders;
  json: string;
  jsonHeaders: OutgoingHttpHeaders;
}

/**
 * `--bare <config.json>`: streams the file from disk per request (createReadStream, its
 * size known up front as a file server knows it from a stat it caches) and answers the
 * JSON from memory, each with the headers our server sent for the same resource.
 */
function runBare(configPath: string): void {
  const config = JSON.parse(readFileSync(configPath, "utf8")) as BareConfig;
  const fileSize = statSync(config.file).size;
  const json = readFileSync(config.json);
  const server = createHttpServer((req, res) => {
    if (req.url === "/file") {
      res.writeHead(200, { ...config.fileHeaders, "content-type": "image/jpeg", "content-length": fileSize });
      pipeline(createReadStream(config.file), res).catch(() => res.destroy());
    } else if (req.url === "/json") {
      res.writeHead(200, { ...config.jsonHeaders, "content-type": "application/json", "content-length": json.length });
      res.end(json);
    } else {
      res.writeHead(404).end();
    }
  });
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo;
    console.log(`listening on http://127.0.0.1:${port}`);
  });
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
}

/** Headers of a reply of ours to copy into the reference: everything but the per-connection and length ones. */
function mirrorHeaders(headers: Headers): OutgoingHttpHeaders {
  const skip = new Set(["date", "connection", "keep-alive", "transfer-encoding", "content-length", "content-type"]);
  const out: OutgoingHttpHeaders = {};
  headers.forEach((value, name) => {
    if (!skip.has(name)) out[name] = value;
  });
  return out;
}

// ---------------------------------------------------------------------------------------
// Inputs (generated once, cached)

/** A 640x480 JPEG of Gaussian noise, the noise strength bisected until it is within 3 % of 100 KiB. */
function ensureJpeg(): Promise<string> {
  return cached(join(CACHE_DIR, "serve-photo-100k-v1.jpg"), async (out) => {
    const { default: sharp } = await import("sharp");
    const render = (sigma: number): Promise<Buffer> =>
      sharp({ create: { width: 640, height: 480, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma } } })
        .jpeg({ quality: 80 })
        .toBuffer();
    let low = 2;
    let high = 80;
    let best = await render((low + high) / 2);
    for (let i = 0; i < 12 && Math.abs(best.length - JPEG_TARGET_BYTES) > JPEG_TARGET_BYTES * 0.03; i++) {
      if (best.length > JPEG_TARGET_BYTES) high = (low + high) / 2;
      else low = (low + high) / 2;
      best = await render((low + high) / 2);
    }
    await writeFile(out, best);
  });
}

/** A 6 s 640x360 30 fps H.264 MP4 (no audio) at ~5 Mbit/s with noise: about 4 MB. */
async function ensureVideo(): Promise<string> {
  const path = await cached(join(CACHE_DIR, "serve-video-4mb-v1.mp4"), (out) =>
    ffmpeg([
      "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-t", "6", "-vf", "noise=alls=20:allf=t",
      "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "5M", "-maxrate", "5M", "-bufsize", "5M",
      "-pix_fmt", "yuv420p", "-g", "60", "-an", "-movflags", "+faststart", "-f", "mp4", out,
    ]),
  );
  if (statSync(path).size < VIDEO_MIN_BYTES) throw new Error(`${path} is smaller than ${VIDEO_MIN_BYTES} bytes; delete it to regenerate`);
  return path;
}

// ---------------------------------------------------------------------------------------
// Server, database and seed

/** The production build and server; retried when the tree is mid-change and it cannot build or start. */
async function startOurs(options: Options, extraEnv: Record<string, string>): Promise<Server> {
  const { ensureBuild } = await import("../lib/server/build");
  for (let attempt = 1; ; attempt++) {
    try {
      // A build (when the sources changed) can take minutes and may wait for another
      // process's build; it is not what we measure.
      await ensureBuild(ROOT, { stdio: "pipe", log });
      // SERVER_NODE_OPTIONS: V8 settings to try on the server (memory experiments).
      const nodeOptions: Record<string, string> = process.env.SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.SERVER_NODE_OPTIONS } : {};
      return await startServer({ ...extraEnv, ...nodeOptions }, options.profileDir);
    } catch (error) {
      if (attempt >= START_ATTEMPTS) throw error;
      log(`the server did not build or start (attempt ${attempt}/${START_ATTEMPTS}), retrying in ${START_RETRY_MS / 1000} s: ${String(error).slice(0, 2000)}`);
      await sleep(START_RETRY_MS);
    }
  }
}

/** A fresh schema of the PostgreSQL database for this run, dropped at the end: the URL with `?schema=`. */
async function freshSchema(baseUrl: string): Promise<string> {
  const { default: pg } = await import("pg");
  const schema = `bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.query(`CREATE SCHEMA "${schema}"`);
  } finally {
    await admin.end();
  }
  onCleanup(async () => {
    const c = new pg.Client({ connectionString: baseUrl });
    await c.connect();
    try {
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await c.end();
    }
  });
  const url = new URL(baseUrl);
  url.searchParams.set("schema", schema);
  return url.toString();
}

const execFileAsync = promisify(execFile);

/** `npm run -s admin -- ...` against the server's database: its one JSON line. */
async function admin(server: Server, args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await execFileAsync("npm", ["run", "-s", "admin", "--", ...args], { cwd: ROOT, env: server.env });
  return JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as Record<string, unknown>;
}

interface PostJson {
  code: string;
  url: string;
  files: { url: string; mime_type?: string; size?: number }[];
}

async function upload(server: Server, key: string, file: Buffer, name: string, type: string, headers: Record<string, string>): Promise<PostJson> {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(file)], { type }), name);
  const res = await fetch(`${server.url}/api/upload`, { method: "POST", headers: { "api-key": key, ...headers }, body: form });
  const text = await res.text();
  const json = JSON.parse(text) as { post?: PostJson };
  if (res.status !== 200 || !json.post?.files?.[0]?.url) throw new Error(`upload of ${name}: HTTP ${res.status} ${text.slice(0, 500)}`);
  return json.post;
}

/** A URL the service returned, as a path on the server we started (PUBLIC_URL is its origin anyway). */
const pathOf = (url: string): string => {
  const u = new URL(url);
  return u.pathname + u.search;
};

interface Probe {
  status: number;
  headers: Headers;
  body: Buffer;
}

async function probe(server: Server, path: string, headers: Record<string, string> = {}): Promise<Probe> {
  // Twice: fetch may reuse a pooled connection the server has just closed as idle.
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await fetch(`${server.url}${path}`, { headers });
      return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
    } catch (error) {
      if (attempt < 2) continue;
      const cause = error instanceof Error && error.cause !== undefined ? ` (${String(error.cause)})` : "";
      throw new Error(`GET ${path}: ${String(error)}${cause}\nserver output (end):\n${server.output().slice(-3000)}`);
    }
  }
}

function expectStatus(what: string, p: Probe, status: number): void {
  if (p.status !== status) throw new Error(`${what}: expected HTTP ${status}, got ${p.status} ${p.body.toString("utf8").slice(0, 300)}`);
}

/**
 * Readers for GET /posts/{code}: one user with one app key each, written straight into the
 * server's database (the admin CLI would cost a process start per key). The limit is per
 * user, so each key can make `limit` requests per window; `take` hands out a key that
 * still has room in its current window, or one whose window has surely ended (the server
 * opens its window at the first hit it admits, a moment after we sent it: a margin keeps
 * both sides' idea of the window apart).
 */
class ReaderPool {
  private readonly keys: string[] = [];
  private readonly windows: { start: number; used: number }[] = [];
  private cursor = 0;
  /** Requests sent when no key had room left (they will be 429s, flagged). */
  exhausted = 0;
  private made = 0;

  constructor(
    private readonly config: { provider: "sqlite" | "postgres"; url: string },
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly marginMs = 2_000,
  ) {}

  get size(): number {
    return this.keys.length;
  }

  /** Adds readers until there are `count`. */
  async grow(count: number): Promise<void> {
    if (count <= this.keys.length) return;
    const { createDb } = await import("../lib/db/client");
    const { issueKey } = await import("../lib/auth/keys");
    const { newId } = await import("../lib/db/ids");
    const db = createDb(this.config);
    try {
      while (this.keys.length < count) {
        const batch = Math.min(500, count - this.keys.length);
        const users = Array.from({ length: batch }, () => ({ id: newId(), name: `reader${this.made++}`, key: issueKey("app") }));
        await db.user.createMany({ data: users.map((u) => ({ id: u.id, username: u.name, displayUsername: u.name, plan: "free" })) });
        await db.app.createMany({ data: users.map((u) => ({ userId: u.id, name: "bench", keyHash: u.key.hash, keyHint: u.key.hint })) });
        for (const u of users) {
          this.keys.push(u.key.key);
          this.windows.push({ start: 0, used: 0 });
        }
      }
    } finally {
      await db.$disconnect();
    }
  }

  /** Counts one request for key `i` when its window has room (or has surely ended). */
  private claim(i: number, now = Date.now()): boolean {
    const w = this.windows[i];
    if (w.used === 0 || now >= w.start + this.windowMs + this.marginMs) {
      w.start = now;
      w.used = 1;
      return true;
    }
    if (w.used < this.limit && now < w.start + this.windowMs - this.marginMs) {
      w.used++;
      return true;
    }
    return false;
  }

  take(): string {
    const now = Date.now();
    for (let tried = 0; tried < this.keys.length; tried++) {
      const i = (this.cursor + tried) % this.keys.length;
      if (!this.claim(i, now)) continue;
      this.cursor = i;
      return this.keys[i];
    }
    this.exhausted++;
    this.cursor = (this.cursor + 1) % this.keys.length;
    return this.keys[this.cursor];
  }

  /** Keys in turn, without counting them as used: for the reference server, which ignores them. */
  any(): string {
    this.spare = (this.spare + 1) % this.keys.length;
    return this.keys[this.spare];
  }
  private spare = 0;

  /**
   * One request with every key that has room in its window, `concurrency` at a time, so
   * the server has seen each key before a measured run (its key cache is warm, as it is
   * for readers who come back). Returns those requests per second: cold keys.
   */
  async touchAll(send: (key: string) => Promise<void>, concurrency = CONNECTIONS): Promise<number> {
    const started = Date.now();
    let next = 0;
    let sent = 0;
    const worker = async (): Promise<void> => {
      while (next < this.keys.length) {
        const i = next++;
        if (!this.claim(i)) continue;
        sent++;
        await send(this.keys[i]);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return sent / Math.max(0.001, (Date.now() - started) / 1000);
  }
}

// ---------------------------------------------------------------------------------------
// Load

interface Target {
  name: string;
  label: string;
  side: "reference" | "ours";
  url: string;
  expect: number;
  headers?: Record<string, string>;
  /** A fresh `api-key` per request (GET /posts/{code}). */
  key?: () => string;
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  responses: number;
  /** Responses with another status than expected, and connection errors/timeouts. */
  unexpected: number;
  statuses: Record<string, number>;
  errors: number;
  load: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** One autocannon run of `seconds` at CONNECTIONS connections; latencies recorded per response. */
function cannon(target: Target, seconds: number): Promise<Run> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const keyed = target.key;
  const requests: autocannon.Request[] | undefined = keyed
    ? [{ setupRequest: (req: autocannon.Request): autocannon.Request => ({ ...req, headers: { ...req.headers, "api-key": keyed() } }) }]
    : undefined;
  return new Promise<Run>((done, fail) => {
    const instance = autocannon(
      { url: target.url, connections: CONNECTIONS, duration: seconds, headers: target.headers ?? {}, requests },
      (error: Error | null, result: autocannon.Result) => {
        if (error) {
          fail(error);
          return;
        }
        const sorted = Float64Array.from(latencies).sort();
        const expected = statuses[String(target.expect)] ?? 0;
        const errors = result.errors + result.timeouts;
        done({
          rps: latencies.length / result.duration,
          p50: percentile(sorted, 50),
          p99: percentile(sorted, 99),
          mean: latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length),
          responses: latencies.length,
          unexpected: latencies.length - expected + errors,
          statuses,
          errors,
          load: loadavg()[0],
        });
      },
    );
    instance.on("response", (_client: autocannon.Client, status: number, _bytes: number, ms: number) => {
      latencies.push(ms);
      statuses[String(status)] = (statuses[String(status)] ?? 0) + 1;
    });
  });
}

/** VmRSS of the server every RSS_SAMPLE_MS, and its VmHWM after a reset (the exact peak, when the kernel allows the reset). */
/** Samples the server's RSS; `phase(name)` attributes the following samples to a target. */
function watchRss(pid: number): { phase(name: string): void; stop(): { idleBytes: number; peakBytes: number; samples: number; byPhase: Record<string, number> } } {
  const idleBytes = statusField(pid, "VmRSS") ?? 0;
  let hwmReset = false;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    hwmReset = true;
  } catch {
    // Not allowed here: the sampled peak stands alone.
  }
  let peak = idleBytes;
  let samples = 0;
  let current = "";
  const byPhase: Record<string, number> = {};
  const timer = setInterval(() => {
    samples++;
    const rss = statusField(pid, "VmRSS") ?? 0;
    peak = Math.max(peak, rss);
    if (current) byPhase[current] = Math.max(byPhase[current] ?? 0, rss);
  }, RSS_SAMPLE_MS);
  return {
    phase(name) {
      current = name;
    },
    stop() {
      clearInterval(timer);
      const hwm = hwmReset ? (statusField(pid, "VmHWM") ?? 0) : 0;
      return { idleBytes, peakBytes: Math.max(peak, hwm), samples, byPhase };
    },
  };
}

// ---------------------------------------------------------------------------------------
// Main

/** A figure of the final JSON line. */
type Figure = number | string | boolean | null | Figure[] | { [name: string]: Figure };

async function main(options: Options): Promise<void> {
  const loadBefore = loadavg()[0];
  await mkdir(CACHE_DIR, { recursive: true });
  const jpegPath = await ensureJpeg();
  const videoPath = await ensureVideo();
  const jpeg = await readFile(jpegPath);
  const video = await readFile(videoPath);

  const database = options.postgresUrl ? "postgres" : "sqlite";
  const extraEnv: Record<string, string> = options.postgresUrl ? { DATABASE_URL: await freshSchema(options.postgresUrl) } : {};
  log(`starting the production server (${database === "sqlite" ? "embedded defaults" : `PostgreSQL, ${extraEnv.DATABASE_URL}`})`);
  const server = await startOurs(options, extraEnv);
  const stopWatchdog = timeBudget(10 * 60_000 + options.rounds * 8 * (options.durationS + 3) * 1000 * 1.5);

  // Seed: the owner through the admin CLI, the posts through the API.
  log("seeding: owner and key (admin CLI), three posts (API)");
  await admin(server, ["user", "create", "--username", "bench_owner", "--plan", "ultra"]);
  const app = await admin(server, ["app", "create", "--user", "bench_owner", "--name", "bench"]);
  if (typeof app.key !== "string") throw new Error(`app create: ${JSON.stringify(app)}`);
  const ownerKey = app.key;
  const publicPost = await upload(server, ownerKey, jpeg, "photo.jpg", "image/jpeg", { "post-privacy": "public" });
  const privatePost = await upload(server, ownerKey, jpeg, "photo.jpg", "image/jpeg", { "post-privacy": "private" });
  const videoPost = await upload(server, ownerKey, video, "clip.mp4", "video/mp4", { "post-privacy": "public", priority: "false" });

  const cdnPath = pathOf(publicPost.files[0].url);
  const signedPath = pathOf(privatePost.files[0].url);
  const videoFilePath = pathOf(videoPost.files[0].url);
  const postPath = `/api/posts/${publicPost.code}`;
  const sharePath = `/p/${publicPost.code}`;

  const cdn = await probe(server, cdnPath);
  expectStatus("public file", cdn, 200);
  expectStatus("signed file", await probe(server, signedPath), 200);
  const range = await probe(server, videoFilePath, { range: `bytes=0-${RANGE_BYTES - 1}` });
  expectStatus("video range", range, 206);
  if (range.body.length !== RANGE_BYTES) throw new Error(`video range: ${range.body.length} bytes, expected ${RANGE_BYTES}`);

  const { BUCKETS } = await import("../lib/ratelimit/buckets");
  const { databaseConfig } = await import("../lib/db/config");
  const readers = new ReaderPool(databaseConfig(server.env), BUCKETS.posts_get.limit, BUCKETS.posts_get.windowSeconds * 1000);
  await readers.grow(1000);
  const postReply = await probe(server, postPath, { "api-key": readers.take() });
  expectStatus("post JSON", postReply, 200);
  const shareStatus = (await probe(server, sharePath, { "user-agent": CRAWLER_UA })).status;
  if (shareStatus !== 200) log(`the share page answers ${shareStatus}: measured anyway, and marked`);

  // The references, with the bytes and headers our server sent.
  const work = await tempDir("mediahost-bench-serve-");
  const bareConfig: BareConfig = {
    file: join(work, "photo.jpg"),
    fileHeaders: mirrorHeaders(cdn.headers),
    json: join(work, "post.json"),
    jsonHeaders: mirrorHeaders(postReply.headers),
  };
  await writeFile(bareConfig.file, cdn.body);
  await writeFile(bareConfig.json, postReply.body);
  await writeFile(join(work, "bare.json"), JSON.stringify(bareConfig));
  const bare: Child = await spawnListening("bare server", ["--import", "tsx", "bench/serve.ts", "--bare", join(work, "bare.json")], { ...baseEnv(), NODE_ENV: "production" });

  const browser = { "user-agent": BROWSER_UA, accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };
  const targets: Target[] = [
    { name: "bare_file", label: "bare node:http, JPEG from disk", side: "reference", url: `${bare.url}/file`, expect: 200 },
    { name: "cdn", label: "GET public file (/cdn)", side: "ours", url: `${server.url}${cdnPath}`, expect: 200 },
    { name: "signed", label: "GET private file, signed URL", side: "ours", url: `${server.url}${signedPath}`, expect: 200 },
    { name: "range", label: "GET video, Range first 1 MiB", side: "ours", url: `${server.url}${videoFilePath}`, expect: 206, headers: { range: `bytes=0-${RANGE_BYTES - 1}` } },
    // The same requests as `post` (an api-key that changes every request), so the client does
    // the same work on both sides; the bare server ignores the key.
    { name: "bare_json", label: "bare node:http, fixed JSON", side: "reference", url: `${bare.url}/json`, expect: 200, key: () => readers.any() },
    { name: "post", label: "GET /api/posts/{code}, api-key", side: "ours", url: `${server.url}${postPath}`, expect: 200, key: () => readers.take() },
    { name: "share_crawler", label: "GET /p/{code}, Discordbot", side: "ours", url: `${server.url}${sharePath}`, expect: 200, headers: { "user-agent": CRAWLER_UA } },
    { name: "share_browser", label: "GET /p/{code}, Chrome", side: "ours", url: `${server.url}${sharePath}`, expect: 200, headers: browser },
  ];

  // Keys for the post runs: each reader makes at most `limit` requests per window, so the
  // pool must cover throughput x (window + margin) / limit, with room to spare.
  const readersFor = (rps: number, seconds: number): number =>
    Math.ceil((rps * Math.min(seconds + 2, BUCKETS.posts_get.windowSeconds + 2) * 1.5) / BUCKETS.posts_get.limit) + 50;

  const rss = watchRss(server.pid);
  const warmS = Math.min(3, options.durationS);
  log(`warm-up: ${warmS} s per target`);
  let postRps = 0;
  for (const t of targets) {
    if (t.name === "post") await readers.grow(readersFor(Math.max(postRps, 2000), warmS));
    rss.phase(t.name);
    const r = await cannon(t, warmS);
    if (t.name === "post") postRps = r.rps;
  }

  const runs = new Map<string, Run[]>(targets.map((t) => [t.name, []]));
  /** GET /posts/{code} with keys the server has not seen yet (each a database look-up). */
  let coldKeyRps = 0;
  for (let r = 1; r <= options.rounds; r++) {
    for (const t of targets) {
      if (t.name === "post") {
        // At least enough for 8 000 req/s: a short warm-up underestimates the steady rate,
        // and a pool that runs dry turns the rest of the run into 429s.
        await readers.grow(readersFor(Math.max(postRps, 8_000), options.durationS));
        coldKeyRps = Math.max(coldKeyRps, await readers.touchAll(async (key) => void (await probe(server, postPath, { "api-key": key }))));
        readers.exhausted = 0;
      }
      await sleep(1000); // let the previous run's sockets close and the servers settle
      rss.phase(t.name);
      const run = await cannon(t, options.durationS);
      if (t.name === "post" && readers.exhausted > 0) log(`  ${readers.exhausted} post requests found no reader key with room left (pool ${readers.size})`);
      if (t.name === "post") postRps = Math.max(postRps, run.rps);
      runs.get(t.name)?.push(run);
      const codes = Object.entries(run.statuses).map(([code, n]) => `${code}×${n}`).join(" ");
      log(
        `round ${r}/${options.rounds} ${t.name.padEnd(13)} ${round(run.rps, 0)} req/s, p50 ${round(run.p50)} ms, p99 ${round(run.p99)} ms` +
          ` [${codes}${run.errors ? ` errors×${run.errors}` : ""}] load ${round(run.load)}`,
      );
    }
  }
  const memory = rss.stop();
  stopWatchdog();
  await bare.stop();
  await server.stop();
  const loadAfter = loadavg()[0];

  // Per target, the round with the highest throughput (the least disturbed by other load).
  const best = (name: string): Run => {
    const list = runs.get(name) ?? [];
    return list.reduce((a, b) => (b.rps > a.rps ? b : a));
  };
  const b = Object.fromEntries(targets.map((t) => [t.name, best(t.name)])) as Record<string, Run>;
  const unexpected = (name: string): number => (runs.get(name) ?? []).reduce((n, run) => n + run.unexpected, 0);
  const ratio = (x: number, y: number): number => round(x / y, 3);
  const cdnRatio = ratio(b.cdn.rps, b.bare_file.rps);
  const cdnP99Ratio = ratio(b.cdn.p99, b.bare_file.p99);
  const signedRatio = ratio(b.signed.rps, b.bare_file.rps);
  const postRatio = ratio(b.post.rps, b.bare_json.rps);
  const shareCrawlerOverPost = ratio(b.share_crawler.mean, b.post.mean);
  const shareBrowserOverPost = ratio(b.share_browser.mean, b.post.mean);
  const peakRssMb = round(mib(memory.peakBytes), 1);
  const flagged = targets.filter((t) => unexpected(t.name) > 0).map((t) => t.name);
  const shareOk = shareStatus === 200 && !flagged.includes("share_crawler") && !flagged.includes("share_browser");

  const pass: Record<string, boolean> = {
    cdn_ratio: cdnRatio >= TARGETS.cdn_ratio && !flagged.includes("cdn"),
    cdn_p99_ratio: cdnP99Ratio <= TARGETS.cdn_p99_ratio && !flagged.includes("cdn"),
    signed_ratio: signedRatio >= TARGETS.signed_ratio && !flagged.includes("signed"),
    post_ratio: postRatio >= TARGETS.post_ratio && !flagged.includes("post"),
    share_crawler_over_post: shareOk && shareCrawlerOverPost <= TARGETS.share_crawler_over_post,
    peak_rss_mb: peakRssMb < TARGETS.peak_rss_mb,
    range: !flagged.includes("range"),
  };

  const figures: Record<string, Figure> = {
    bench: "serve",
    database,
    machine: { ...machine(), loadavg_1m_before: round(loadBefore), loadavg_1m_after: round(loadAfter) },
    connections: CONNECTIONS,
    duration_s: options.durationS,
    rounds: options.rounds,
    jpeg_bytes: cdn.body.length,
    video_bytes: video.length,
    range_bytes: RANGE_BYTES,
    post_json_bytes: postReply.body.length,
    share_status: shareStatus,
    reader_keys: readers.size,
  };
  for (const t of targets) {
    const run = b[t.name];
    figures[`${t.name}_rps`] = round(run.rps, 0);
    figures[`${t.name}_p50_ms`] = round(run.p50);
    figures[`${t.name}_p99_ms`] = round(run.p99);
    figures[`${t.name}_mean_ms`] = round(run.mean);
    figures[`${t.name}_rounds_rps`] = (runs.get(t.name) ?? []).map((x) => round(x.rps, 0));
    figures[`${t.name}_loadavg_1m`] = round(run.load);
    figures[`${t.name}_unexpected`] = unexpected(t.name);
    figures[`${t.name}_statuses`] = sumStatuses(runs.get(t.name) ?? []);
  }
  Object.assign(figures, {
    cdn_ratio: cdnRatio,
    cdn_p99_ratio: cdnP99Ratio,
    signed_ratio: signedRatio,
    signed_p99_ratio: ratio(b.signed.p99, b.bare_file.p99),
    post_ratio: postRatio,
    post_p99_ratio: ratio(b.post.p99, b.bare_json.p99),
    // The lower of the two: a share link is opened by unfurlers and by people alike.
    share_rps: round(Math.min(b.share_crawler.rps, b.share_browser.rps), 0),
    share_crawler_over_post: shareCrawlerOverPost,
    share_browser_over_post: shareBrowserOverPost,
    post_cold_key_rps: round(coldKeyRps, 0),
    peak_rss_mb: peakRssMb,
    idle_rss_mb: round(mib(memory.idleBytes), 1),
    peak_rss_mb_by_target: Object.fromEntries(Object.entries(memory.byPhase).map(([name, bytes]) => [name, round(mib(bytes), 1)])),
    rss_samples: memory.samples,
    flagged,
    targets: { cdn_ratio: ">= 0.5", cdn_p99_ratio: "<= 2", signed_ratio: ">= 0.45", post_ratio: ">= 0.25", share_crawler_over_post: "<= 3", peak_rss_mb: "< 400" },
    pass,
  });
  if (options.profileDir) log(`server CPU profile in ${options.profileDir}`);

  const m = machine();
  const row = (t: Target): string => {
    const run = b[t.name];
    const bad = unexpected(t.name);
    const note = bad > 0 ? `  FLAGGED: ${bad} unexpected (${Object.entries(sumStatuses(runs.get(t.name) ?? [])).map(([c, n]) => `${c}×${n}`).join(" ")})` : "";
    return `  ${t.name.padEnd(14)} ${String(round(run.rps, 0)).padStart(7)} req/s  p50 ${String(round(run.p50)).padStart(7)} ms  p99 ${String(round(run.p99)).padStart(7)} ms  mean ${String(round(run.mean)).padStart(7)} ms  ${t.label}${note}`;
  };
  console.log(
    [
      "",
      `bench:serve on ${m.cpus} x ${m.cpu_model}, ${m.memory_gb} GB RAM, Node ${m.node}, Linux ${m.kernel}; database ${database}`,
      `${CONNECTIONS} connections, ${options.durationS} s per run, best of ${options.rounds} alternating rounds; 1-min load ${round(loadBefore)} before, ${round(loadAfter)} after`,
      `JPEG ${cdn.body.length} bytes, video ${video.length} bytes (range ${RANGE_BYTES}), post JSON ${postReply.body.length} bytes, ${readers.size} reader keys`,
      "",
      ...targets.map(row),
      "",
      `  cdn_ratio               ${cdnRatio}  (target >= ${TARGETS.cdn_ratio}: ${mark(pass.cdn_ratio)})`,
      `  cdn_p99_ratio           ${cdnP99Ratio}  (target <= ${TARGETS.cdn_p99_ratio}: ${mark(pass.cdn_p99_ratio)})`,
      `  signed_ratio            ${signedRatio}  (target >= ${TARGETS.signed_ratio}: ${mark(pass.signed_ratio)})`,
      `  post_ratio              ${postRatio}  (target >= ${TARGETS.post_ratio}: ${mark(pass.post_ratio)})`,
      `  post, keys never seen    ${round(coldKeyRps, 0)} req/s (one request per reader key before each run, ${CONNECTIONS} at a time)`,
      `  share_crawler_over_post ${shareCrawlerOverPost}  (target <= ${TARGETS.share_crawler_over_post}: ${mark(pass.share_crawler_over_post)})${shareStatus === 200 ? "" : `  share page answered ${shareStatus}`}`,
      `  share_browser_over_post ${shareBrowserOverPost}`,
      `  peak RSS                ${peakRssMb} MB (idle ${round(mib(memory.idleBytes), 1)} MB; target < ${TARGETS.peak_rss_mb}: ${mark(pass.peak_rss_mb)})`,
      `  peak RSS per target     ${Object.entries(memory.byPhase).map(([name, bytes]) => `${name} ${round(mib(bytes), 0)}`).join(", ")} MB`,
      flagged.length ? `  FLAGGED runs (unexpected statuses or errors): ${flagged.join(", ")}` : "  every response had the expected status",
    ].join("\n"),
  );
  console.log(JSON.stringify(figures));
}

function sumStatuses(list: Run[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const run of list) {
    for (const [code, n] of Object.entries(run.statuses)) out[code] = (out[code] ?? 0) + n;
    if (run.errors) out.errors = (out.errors ?? 0) + run.errors;
  }
  return out;
}

if (process.argv[2] === "--bare") {
  runBare(process.argv[3]);
} else {
  const options = parseOptions(process.argv.slice(2));
  runBench(() => main(options));
}
