/**
 * bench:serve — the read path of the production server under load (issues 7 and 17).
 *
 *   node --import tsx bench/serve.ts [--duration 10] [--rounds 2] [--connections 50]
 *                                    [--postgres] [--no-pin] [--cpu-prof] [--only cdn,post,...]
 *                                    [--pipeline 1]
 *
 * Starts the production server (scripts/start.ts, the built app) with the embedded
 * defaults (SQLite under a fresh DATA_DIR), or with `--postgres` (or DATABASE_URL set to a
 * postgresql:// URL; default postgresql://postgres@127.0.0.1:5432/test) on a fresh schema
 * `bench_<pid>` of that database, dropped at the end, and seeds it (serve/seed.ts).
 *
 * Load comes from `wrk` (a C load generator, Debian's package) in a process of its own:
 * 1 thread, 50 connections, `--duration` seconds per run, latency percentiles from wrk's
 * own histogram (a Lua `done()` prints them as JSON). An in-process Node client (autocannon,
 * until issue 17) topped out near 800 req/s, below what a bare server does, so every file
 * ratio it printed measured the client.
 *
 * Every target is a pair, a reference doing the same work, and ours, one module each:
 * file and range (serve/file-range.ts), post (serve/post.ts) and share (serve/share.ts)
 * against a bare `node:http` reference in its own child process (serve/bare.ts); offload
 * (serve/offload.ts) and proxycache (serve/proxycache.ts) against nginx sending the bytes itself.
 *
 * The references send the headers ours sent (copied from a reply of ours), so header bytes
 * are alike. Rounds alternate (reference, ours, reference, ours...), and each ratio is ours
 * over the reference run just before it; best and median over rounds are reported.
 *
 * A ratio only counts when the reference saturated the server's core: the CPU time of the
 * server under test over each run is read from /proc (main thread:
 * /proc/<pid>/task/<pid>/stat; whole process: /proc/<pid>/stat). A reference whose main
 * thread stays under 90 % of one core was held back by the client (or by other load), so
 * that run is `client_bound: true` and its ratio does not count. The 1-minute load average
 * is recorded per run.
 *
 * Pinning (unless `--no-pin`): wrk runs on CPU 0 (`taskset -c 0`) and every server, ours
 * and the references alike, on CPU 1 (`taskset -a -p`, all threads), so the load generator
 * never takes the server's core and both sides get the same core. After the warm-up each
 * server's main thread is left alone on CPU 1 and its other threads (libuv's pool, V8's
 * helpers) move to CPU 0 beside wrk (`--pin-all` keeps them on CPU 1): the main thread is
 * what the 90 % rule reads, and a file server's pool would otherwise take a quarter of it.
 * A run with responses outside 2xx/3xx or socket errors is flagged.
 *
 * The server's RSS is sampled every 50 ms (plus its VmHWM after a reset) from the first
 * warm-up to the last run. `--cpu-prof` runs the server under `node --cpu-prof` and keeps
 * the profile (path printed). Inputs are cached in $TMPDIR/mediahost-bench/; every data
 * directory and the PostgreSQL schema are removed at the end, also on failure. The last
 * line of stdout is one JSON object with every figure.
 */
import { mkdir } from "node:fs/promises";
import { loadavg } from "node:os";
import { CACHE_DIR, log, round, runBench, sleep, tempDir, timeBudget } from "./support/run";
import { runBare, sides, startBare } from "./serve/bare";
import { FILE_RANGE_RATIOS, fileRangeTargets } from "./serve/file-range";
import { pin, pinMainThread, requireWrk, type Run, runWrk, SERVER_CPU, type Target, WRK_CPU, watchRss } from "./serve/load";
import { OFFLOAD_RATIOS, offloadImage, startOffload } from "./serve/offload";
import { type Options, parseOptions } from "./serve/options";
import { freshSchema, startOurs } from "./serve/ours";
import { POST_RATIOS, type PostPair, startPostPair } from "./serve/post";
import { PROXYCACHE_RATIOS, startProxyCache } from "./serve/proxycache";
import { report } from "./serve/report";
import { inputs, RANGE_BYTES, seed } from "./serve/seed";
import { SHARE_RATIOS, sharePage, shareTargets } from "./serve/share";

const RATIOS = [...FILE_RANGE_RATIOS, ...POST_RATIOS, ...SHARE_RATIOS, ...OFFLOAD_RATIOS, ...PROXYCACHE_RATIOS];

/** A warm-up run of every target, then `options.rounds` alternating rounds of measured runs. */
async function measure(
  targets: Target[],
  options: Options,
  work: string,
  post: PostPair,
  rss: ReturnType<typeof watchRss>,
  afterWarmUp: () => void,
): Promise<Map<string, Run[]>> {
  const warmS = Math.min(3, options.durationS);
  log(`warm-up: ${warmS} s per target${options.pin ? `; wrk on CPU ${WRK_CPU}, servers on CPU ${SERVER_CPU}` : ""}`);
  for (const t of targets) {
    rss.phase(t.name);
    post.observe(t, await runWrk(t, warmS, options, work));
  }
  afterWarmUp();
  const runs = new Map<string, Run[]>(targets.map((t) => [t.name, []]));
  for (let r = 1; r <= options.rounds; r++) {
    for (const t of targets) {
      await post.beforeRun(t);
      await sleep(1000); // let the previous run's sockets close and the servers settle
      rss.phase(t.name);
      const run = await runWrk(t, options.durationS, options, work);
      post.observe(t, run);
      runs.get(t.name)?.push(run);
      log(
        `round ${r}/${options.rounds} ${t.name.padEnd(12)} ${String(round(run.rps, 0)).padStart(6)} req/s, p50 ${round(run.p50)} ms, p99 ${round(run.p99)} ms,` +
          ` server CPU main ${round(run.mainCpu * 100, 0)} % total ${round(run.totalCpu * 100, 0)} % (${round(run.cpuUsPerRequest, 0)} µs/request)${run.unexpected ? ` UNEXPECTED×${run.unexpected}` : ""} load ${round(run.load)}`,
      );
    }
  }
  return runs;
}

async function main(options: Options): Promise<void> {
  requireWrk();
  const loadBefore = loadavg()[0];
  await mkdir(CACHE_DIR, { recursive: true });
  const { jpeg, video } = await inputs();

  const database = options.postgresUrl ? "postgres" : "sqlite";
  const extraEnv: Record<string, string> = options.postgresUrl ? { DATABASE_URL: await freshSchema(options.postgresUrl) } : {};
  log(`starting the production server (${database === "sqlite" ? "embedded defaults" : `PostgreSQL, ${extraEnv.DATABASE_URL}`})`);
  const server = await startOurs(options, extraEnv);
  const stopWatchdog = timeBudget(10 * 60_000 + options.rounds * 10 * (options.durationS + 3) * 1000 * 2);
  const seeded = await seed(server, jpeg, video);
  const post = await startPostPair(server, seeded.postPath, options);
  const share = await sharePage(server, seeded.sharePath);

  const work = await tempDir("mediahost-bench-serve-");
  const bare = await startBare(work, { cdn: seeded.cdn, range: seeded.range, post: post.reply, share, video });
  const image = options.only.has("offload") || options.only.has("proxycache") ? await offloadImage(server, seeded.ownerKey, work) : null;
  const offload = options.only.has("offload") && image ? await startOffload(options, server, extraEnv, work, image, seeded) : null;
  const proxyCache = options.only.has("proxycache") && image ? await startProxyCache(server, work, image) : null;
  if (options.pin) {
    for (const pid of [server.pid, bare.pid, ...(offload ? [offload.server.pid, offload.nginx.pid] : [])]) pin(pid, SERVER_CPU);
    if (proxyCache) pin(proxyCache.nginx.pid, SERVER_CPU);
  }

  const on = sides(server, bare);
  const all: Target[] = [
    ...fileRangeTargets(on, seeded),
    ...(await post.targets(on, work)),
    ...shareTargets(on, seeded.sharePath),
    ...(offload ? offload.targets : []),
    ...(proxyCache ? proxyCache.targets : []),
  ];
  const targets = all.filter((t) => options.only.has(t.pair));

  const rss = watchRss(server.pid);
  const runs = await measure(targets, options, work, post, rss, () => {
    if (!options.pin || !options.splitPin) return;
    pinMainThread(server.pid, SERVER_CPU, WRK_CPU);
    pinMainThread(bare.pid, SERVER_CPU, WRK_CPU);
    if (offload) pinMainThread(offload.server.pid, SERVER_CPU, WRK_CPU);
    log(`main threads alone on CPU ${SERVER_CPU}; the servers' other threads on CPU ${WRK_CPU} with wrk`);
  });
  const memory = rss.stop();
  stopWatchdog();
  await bare.stop();
  if (offload) {
    await offload.nginx.stop();
    await offload.server.stop();
  }
  await proxyCache?.nginx.stop();
  await server.stop();

  report({
    options,
    database,
    loadBefore,
    loadAfter: loadavg()[0],
    sizes: {
      jpeg_bytes: seeded.cdn.body.length,
      video_bytes: video.length,
      range_bytes: RANGE_BYTES,
      post_json_bytes: post.reply.body.length,
      share_bytes: share.body.length,
      share_status: share.status,
      reader_keys: post.readers.keys.length,
    },
    targets,
    runs,
    ratios: RATIOS,
    memory,
    coldKeyRps: post.coldKeyRps(),
  });
}

if (process.argv[2] === "--bare") {
  runBare(process.argv[3]);
} else {
  const options = parseOptions(process.argv.slice(2));
  runBench(() => main(options));
}
