/**
 * The image pair: bursts of concurrent JPEG uploads against raw sharp and our own pipeline
 * in this process, plus the burst against the embedded defaults.
 */
import { copyFile, mkdir, readFile, rm } from "node:fs/promises";
import { rmSync } from "node:fs";
import type { Agent } from "node:http";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { log, mark, mib, round, sameSharpThreads, sleep, tempDir } from "../support/run";
import { type Server, startServer } from "../support/server";
import { expectUploaded, postFile, type Reply, runPool } from "./client";
import { IMAGE_CONCURRENCY, IMAGE_COUNT, PROFILE_DIR } from "./options";
import { flushDisk, peakOf, processCpuMs, type ThreadCpu, threadCpuMs, watchRss } from "./proc";
import type { Section } from "./report";
import { createUploaders } from "./seed";

/** Queue depth for the like-for-like image run: every one of the 200 gets admitted. */
const ADMIT_ALL_QUEUE = 256;
const IMAGE_ROUNDS = 2;

interface BurstResult {
  seconds: number;
  /** CPU time over the burst, ms per uploaded image: the server process (all its threads) and this client process. */
  serverCpuMsPerImage: number;
  /** The same split by thread: the JavaScript thread, libvips' workers, the rest (libuv's pool, V8's helpers). */
  serverThreadsMsPerImage: ThreadCpu;
  clientCpuMsPerImage: number;
  ok: number;
  /** Seconds from the burst's start to the first, the median and the last successful reply. */
  replies: { first: number; median: number; last: number };
  /** 503 `unavailable` answers (each one retried). */
  rejected: number;
  failures: string[];
}

/**
 * IMAGE_COUNT uploads, IMAGE_CONCURRENCY at a time, one key each. A 503 (media queue full)
 * is retried with jittered exponential backoff from 250 ms, capped at 2 s: at most ~4
 * attempts a second and ~16 in 30 s per user, inside the abuse safeguard (8/s) and the
 * upload bucket (20/30 s). Retry-After (5 s) is not honoured: it would measure our sleeps.
 */
async function uploadBurst(server: Server, keys: string[], jpeg: Buffer, agent: Agent): Promise<BurstResult> {
  let ok = 0;
  let rejected = 0;
  const failures: string[] = [];
  const done: number[] = [];
  const started = performance.now();
  const serverCpu = processCpuMs(server.pid);
  const serverThreads = threadCpuMs(server.pid);
  const clientCpu = process.cpuUsage();
  await runPool(IMAGE_COUNT, IMAGE_CONCURRENCY, async (i) => {
    for (let attempt = 0; ; attempt++) {
      let reply: Reply;
      try {
        reply = await postFile(
          `${server.url}/api/upload`,
          { buffer: jpeg },
          `photo${i}.jpg`,
          "image/jpeg",
          { "api-key": keys[i], "post-privacy": "unlisted" },
          agent,
        );
      } catch (error) {
        // Counted, not fatal: one broken connection should not void the other 199 figures.
        failures.push(`#${i}: ${String(error)}`);
        return;
      }
      if (reply.status === 200) {
        ok++;
        done.push((performance.now() - started) / 1000);
        return;
      }
      if (reply.status === 503 && attempt < 40) {
        rejected++;
        await sleep(Math.min(2000, 250 * 2 ** attempt) * (0.5 + Math.random()));
        continue;
      }
      failures.push(`#${i}: HTTP ${reply.status} ${reply.body.slice(0, 200)}`);
      return;
    }
  });
  const client = process.cpuUsage(clientCpu);
  const threadsAfter = threadCpuMs(server.pid);
  const perImage = (key: keyof ThreadCpu) => (threadsAfter[key] - serverThreads[key]) / Math.max(1, ok);
  return {
    seconds: (performance.now() - started) / 1000,
    serverCpuMsPerImage: (processCpuMs(server.pid) - serverCpu) / Math.max(1, ok),
    serverThreadsMsPerImage: { main: perImage("main"), vips: perImage("vips"), other: perImage("other") },
    clientCpuMsPerImage: (client.user + client.system) / 1000 / Math.max(1, ok),
    ok,
    replies: { first: done[0] ?? 0, median: done[Math.floor(done.length / 2)] ?? 0, last: done[done.length - 1] ?? 0 },
    rejected,
    failures,
  };
}

/** Copies of the JPEG, one per job (untimed): the server, too, reads each upload from its own fresh temp file. */
async function jobInputs(dir: string, jpeg: string): Promise<string[]> {
  const inputs: string[] = [];
  for (let i = 0; i < IMAGE_COUNT; i++) {
    const path = join(dir, `in-${i}.jpg`);
    await copyFile(jpeg, path);
    inputs.push(path);
  }
  return inputs;
}

/** Runs `work` on every input with IMAGE_CONCURRENCY in flight; seconds for all of them. */
async function inProcess(inputs: string[], outDir: string, work: (input: string, output: string) => Promise<void>): Promise<number> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const started = performance.now();
  await runPool(inputs.length, IMAGE_CONCURRENCY, (i) => work(inputs[i], join(outDir, `out-${i}.jpg`)));
  return (performance.now() - started) / 1000;
}

interface InProcessRound {
  seconds: number;
  /** This process's CPU time (all threads) per image. */
  cpuMsPerImage: number;
}

/** One timed in-process round, logging its time and CPU split by thread. */
async function inProcessRound(
  inputs: string[],
  outDir: string,
  work: (input: string, output: string) => Promise<void>,
): Promise<InProcessRound> {
  const cpu = process.cpuUsage();
  const before = threadCpuMs(process.pid);
  const seconds = await inProcess(inputs, outDir, work);
  const used = process.cpuUsage(cpu);
  const after = threadCpuMs(process.pid);
  const split = (Object.keys(after) as (keyof ThreadCpu)[]).map((k) => `${k} ${round((after[k] - before[k]) / inputs.length, 1)}`);
  log(`  ${round(seconds)} s, CPU ms per image: ${split.join(", ")}`);
  return { seconds, cpuMsPerImage: (used.user + used.system) / 1000 / inputs.length };
}

/** Phase 2: the default-config burst on server A, the in-process references, the like-for-like burst on server B. */
export async function imageSection(serverA: Server, warmKeyA: string, keysA: string[], jpegPath: string, agent: Agent): Promise<Section> {
  const { default: sharp } = await import("sharp");
  const { mediaConfig, DEFAULT_QUEUE_BYTES, DEFAULT_QUEUE_WAIT_SECONDS } = await import("../../lib/media/config");
  const jpeg = await readFile(jpegPath);
  const jpegMeta = await sharp(jpeg).metadata();

  expectUploaded(
    "warm-up image",
    await postFile(
      `${serverA.url}/api/upload`,
      { buffer: jpeg },
      "warm.jpg",
      "image/jpeg",
      { "api-key": warmKeyA, "post-privacy": "unlisted" },
      agent,
    ),
  );
  flushDisk();
  log(`defaults: ${IMAGE_COUNT} concurrent JPEG uploads (503s retried)`);
  const defaultsRss = watchRss(serverA.pid);
  const defaults = await uploadBurst(serverA, keysA, jpeg, agent);
  const defaultsMemory = defaultsRss.stop();
  const defaultsGrowth = mib(peakOf(defaultsMemory) - defaultsMemory.baselineBytes);
  log(
    `defaults: ${defaults.ok} ok in ${round(defaults.seconds)} s, ${defaults.rejected} 503s, ${defaults.failures.length} failed, RSS growth ${round(defaultsGrowth, 1)} MB`,
  );
  await serverA.stop();
  rmSync(serverA.dataDir, { recursive: true, force: true });

  // Server B: the same defaults, with a media queue deep enough to admit all 200. Started
  // first so that it idles through the in-process runs and the rounds can alternate.
  flushDisk();
  log(`starting the production server (MEDIA_QUEUE_MAX=${ADMIT_ALL_QUEUE})`);
  const serverB = await startServer({ MEDIA_QUEUE_MAX: String(ADMIT_ALL_QUEUE) }, PROFILE_DIR);
  const [warmKey, ...keysB] = await createUploaders(serverB.dataDir, IMAGE_COUNT + 1);
  expectUploaded(
    "warm-up image",
    await postFile(
      `${serverB.url}/api/upload`,
      { buffer: jpeg },
      "warm.jpg",
      "image/jpeg",
      { "api-key": warmKey, "post-privacy": "unlisted" },
      agent,
    ),
  );

  // The in-process references, with server B's limiter settings. mediaConfig() reads the
  // environment on its first use, which comes after this line.
  process.env.MEDIA_QUEUE_MAX = String(ADMIT_ALL_QUEUE);
  const { processImage } = await import("../../lib/media/image");
  const work = await tempDir("mediahost-bench-images-");
  await mkdir(join(work, "in"));
  const inputs = await jobInputs(join(work, "in"), jpegPath);
  const strip = (input: string, output: string) =>
    processImage(input, output, { keepMetadata: false, format: "jpeg" }).then(() => undefined);
  sharp.cache(false); // as lib/media/sharp.ts configures it for the server
  const reencode = (input: string, output: string) =>
    sharp(input, { failOn: "error" })
      .rotate()
      .jpeg({ quality: 90, mozjpeg: false })
      .toFile(output)
      .then(() => undefined);
  // Warm-up (thread pool, libvips and module initialisation).
  await inProcess(inputs.slice(0, 8), join(work, "warm"), strip);
  await inProcess(inputs.slice(0, 8), join(work, "warm"), reencode);

  // Rounds alternate the two references and the server, so other load on the machine hits
  // all three alike; the best round of each counts. Each user uploads once per round.
  const sharpRef: InProcessRound[] = [];
  const pipelineRef: InProcessRound[] = [];
  const bursts: BurstResult[] = [];
  for (let r = 1; r <= IMAGE_ROUNDS; r++) {
    flushDisk();
    log(
      `round ${r}/${IMAGE_ROUNDS}: raw sharp in-process (decode, orient, re-encode without metadata) on ${IMAGE_COUNT} files, ${IMAGE_CONCURRENCY} at a time`,
    );
    sharpRef.push(await inProcessRound(inputs, join(work, "sharp"), reencode));
    flushDisk();
    log(
      `round ${r}/${IMAGE_ROUNDS}: our pipeline in-process (processImage, same limiter settings) on ${IMAGE_COUNT} files, ${IMAGE_CONCURRENCY} at a time`,
    );
    pipelineRef.push(await inProcessRound(inputs, join(work, "pipeline"), strip));
    flushDisk();
    log(`round ${r}/${IMAGE_ROUNDS}: ours, ${IMAGE_COUNT} concurrent JPEG uploads`);
    const burst = await uploadBurst(serverB, keysB, jpeg, agent);
    log(
      `  ${burst.ok} ok in ${round(burst.seconds)} s (replies: first ${round(burst.replies.first)} s, median ${round(burst.replies.median)} s), ${burst.rejected} 503s, ${burst.failures.length} failed`,
    );
    bursts.push(burst);
  }
  await serverB.stop();
  rmSync(serverB.dataDir, { recursive: true, force: true });
  const limiter = mediaConfig();
  rmSync(work, { recursive: true, force: true });

  const fastest = (rounds: InProcessRound[]) => rounds.reduce((x, y) => (y.seconds < x.seconds ? y : x));
  const sharpBest = fastest(sharpRef);
  const pipelineBest = fastest(pipelineRef);
  const burst = bursts.reduce((x, y) => (y.ok / y.seconds > x.ok / x.seconds ? y : x));
  const burstFailures = bursts.flatMap((x) => x.failures);
  const perS = burst.ok / burst.seconds;
  const sharpPerS = IMAGE_COUNT / sharpBest.seconds;
  const pipelinePerS = IMAGE_COUNT / pipelineBest.seconds;
  const defaultPerS = defaults.ok / defaults.seconds;
  const ratio = perS / sharpPerS;
  const ratioVsPipeline = perS / pipelinePerS;
  const secondsOf = (rounds: { seconds: number }[]) => rounds.map((x) => round(x.seconds)).join(", ");
  const lines = [
    `${IMAGE_COUNT} concurrent ${round(mib(jpeg.length), 2)} MB ${jpegMeta.width}x${jpegMeta.height} JPEGs (EXIF orientation 1 + GPS + XMP), metadata stripped`,
    `  ours       ${round(perS, 1)} images/s (best of ${IMAGE_ROUNDS}: ${burst.ok} ok in ${round(burst.seconds)} s; rounds: ${secondsOf(bursts)} s; MEDIA_QUEUE_MAX=${ADMIT_ALL_QUEUE}, media concurrency ${limiter.concurrency})`,
    `  raw sharp  ${round(sharpPerS, 1)} images/s (decode, orient, re-encode q90 without metadata, in-process; rounds: ${secondsOf(sharpRef)} s)`,
    `  ratio      ${round(ratio, 3)}  (target >= 0.7: ${mark(ratio >= 0.7)})`,
    `  our pipeline alone: ${round(pipelinePerS, 1)} images/s (processImage in-process, same limiter settings, no HTTP/database/storage; rounds: ${secondsOf(pipelineRef)} s) → ours / that ${round(ratioVsPipeline, 3)}`,
    `  CPU per image (best rounds): server ${round(burst.serverCpuMsPerImage, 1)} ms (JavaScript thread ${round(burst.serverThreadsMsPerImage.main, 1)}, libvips ${round(burst.serverThreadsMsPerImage.vips, 1)}, other threads ${round(burst.serverThreadsMsPerImage.other, 1)}) + client ${round(burst.clientCpuMsPerImage, 1)} ms; raw sharp ${round(sharpBest.cpuMsPerImage, 1)} ms; pipeline alone ${round(pipelineBest.cpuMsPerImage, 1)} ms`,
    `  libvips threads per image in this process: ${sharp.concurrency()} (${sameSharpThreads()})`,
    `  embedded defaults (queue bounded by ${round(mib(DEFAULT_QUEUE_BYTES))} MB and ${DEFAULT_QUEUE_WAIT_SECONDS} s): ${round(defaultPerS, 1)} images/s, ${defaults.ok} ok, ${defaults.rejected} 503s retried (target 0: ${mark(defaults.rejected === 0)}), ${defaults.failures.length} failed → ratio ${round(defaultPerS / sharpPerS, 3)}`,
    `             server RSS ${round(mib(defaultsMemory.baselineBytes), 1)} MB before the burst, ${round(mib(peakOf(defaultsMemory)), 1)} MB peak → growth ${round(defaultsGrowth, 1)} MB (target < 150: ${mark(defaultsGrowth < 150)})`,
  ];
  for (const f of [...burstFailures, ...defaults.failures].slice(0, 5)) lines.push(`  failure: ${f}`);
  return {
    figures: {
      image_bytes: jpeg.length,
      image_width: jpegMeta.width,
      image_height: jpegMeta.height,
      images: IMAGE_COUNT,
      image_concurrency: IMAGE_CONCURRENCY,
      media_concurrency: limiter.concurrency,
      media_queue_max: limiter.queueMax,
      images_ok: burst.ok,
      images_failed: burstFailures.length,
      images_rounds_seconds: bursts.map((x) => round(x.seconds)),
      images_seconds: round(burst.seconds),
      images_per_s: round(perS, 1),
      images_first_reply_s: round(burst.replies.first, 2),
      images_median_reply_s: round(burst.replies.median, 2),
      server_cpu_ms_per_image: round(burst.serverCpuMsPerImage, 2),
      server_main_thread_cpu_ms_per_image: round(burst.serverThreadsMsPerImage.main, 2),
      server_vips_cpu_ms_per_image: round(burst.serverThreadsMsPerImage.vips, 2),
      server_other_threads_cpu_ms_per_image: round(burst.serverThreadsMsPerImage.other, 2),
      client_cpu_ms_per_image: round(burst.clientCpuMsPerImage, 2),
      sharp_rounds_seconds: sharpRef.map((x) => round(x.seconds)),
      sharp_images_per_s: round(sharpPerS, 1),
      sharp_cpu_ms_per_image: round(sharpBest.cpuMsPerImage, 2),
      image_ratio: round(ratio, 3),
      pipeline_rounds_seconds: pipelineRef.map((x) => round(x.seconds)),
      pipeline_images_per_s: round(pipelinePerS, 1),
      pipeline_cpu_ms_per_image: round(pipelineBest.cpuMsPerImage, 2),
      image_ratio_vs_pipeline: round(ratioVsPipeline, 3),
      default_images_ok: defaults.ok,
      default_images_failed: defaults.failures.length,
      default_503: defaults.rejected,
      default_503_retries: defaults.rejected,
      default_rss_baseline_mb: round(mib(defaultsMemory.baselineBytes), 1),
      default_rss_peak_mb: round(mib(peakOf(defaultsMemory)), 1),
      default_rss_growth_mb: round(defaultsGrowth, 1),
      default_images_seconds: round(defaults.seconds),
      default_images_per_s: round(defaultPerS, 1),
      default_image_ratio: round(defaultPerS / sharpPerS, 3),
      sharp_concurrency_in_process: sharp.concurrency(),
    },
    pass: {
      image_ratio: ratio >= 0.7 && burstFailures.length === 0,
      default_503: defaults.rejected === 0 && defaults.failures.length === 0,
      default_rss_growth_mb: defaultsGrowth < 150,
    },
    lines,
  };
}
