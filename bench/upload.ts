/**
 * bench:upload — upload throughput and memory of the production server (issue 3, "Benchmark").
 *
 *   node --import tsx bench/upload.ts
 *
 * What it measures, each next to a reference measured in the same run on the same machine:
 *
 * 1. One ~1 GiB H.264 MP4 uploaded to POST /api/upload (multipart field `file`, streamed
 *    from disk by the client): throughput from request start to the last byte of the
 *    response, and the server process's RSS before and at its peak during the upload
 *    (`rss_growth_mb`). References: a bare node:http server in a child process that streams
 *    the same multipart body, unparsed, into a file, and the same server fsyncing the file
 *    before it answers, as we do before an upload is acknowledged. Judged:
 *    `upload_ratio_vs_synced` = the synced sink's median time / ours (issue 42 §3, >= 0.8);
 *    recorded: `upload_ratio` against the bare sink, the best-round ratios, and CPU seconds
 *    per GiB of each side (process and reaped children), steadier than wall time when shared.
 * 2. 200 concurrent uploads of a ~1 MiB JPEG with EXIF (orientation 1, GPS, XMP), metadata
 *    stripped (the default): images per second. Reference, as the issue sets it: raw sharp
 *    doing the same job in this process, 200 at a time (decode, apply the orientation,
 *    encode again at the source's quality 90 without metadata: `image_ratio` = ours / that).
 *    A stricter second reference is our own pipeline without the service around it:
 *    `processImage` of lib/media on the same files with the same media-limiter settings
 *    (for this file a lossless path: container surgery and a verifying decode), so
 *    `image_ratio_vs_pipeline` = ours / that is what HTTP, the database and storage cost.
 *
 * The media limiter admits MEDIA_CONCURRENCY jobs and queues more up to MEDIA_QUEUE_BYTES
 * of waiting input and MEDIA_QUEUE_WAIT_SECONDS of waiting (no count bound by default);
 * past those a job is refused with 503 `unavailable`. A burst of 200 is run twice: once
 * against the embedded defaults with clients retrying 503s (what a real burst sees,
 * reported as `default_*`: `default_503` must be 0, and the server's RSS growth over that
 * burst `default_rss_growth_mb` below 150), and once with MEDIA_QUEUE_MAX=256 set
 * explicitly (as before the queue was bounded by bytes) for the like-for-like comparison
 * with the in-process reference.
 *
 * Each comparison runs in alternating rounds (reference, ours, reference, ours), because the
 * machine may be shared: a burst of someone else's load then hits both sides alike. The video
 * compares the rounds' medians, the images each side's best round. Memory is reported from
 * the worst round.
 *
 * Options: `--only video` / `--only images` runs one half; `--cpu-prof` runs the servers
 * under `node --cpu-prof` and keeps the profiles (path printed at the end); BENCH_NODE_ARGS
 * adds node flags to the servers (say `--max-semi-space-size=32`) for experiments. The
 * server's CPU per image is printed split by thread (JavaScript, libvips, the rest).
 *
 * One module per pair: the video (upload/video.ts) against the sink (upload/sink.ts), the
 * images (upload/images.ts); shared support: options, inputs and accounts (upload/seed.ts),
 * the multipart client (upload/client.ts), /proc readings (upload/proc.ts), the report.
 *
 * Sizes are in MiB (2^20 bytes), reported as "MB". Everything runs on loopback. Generated
 * inputs are cached in $TMPDIR/mediahost-bench/ (delete it to regenerate); every data
 * directory of a run is removed at the end, also on failure or after the time budget.
 * The last line of stdout is one JSON object with every figure.
 */
import { mkdir } from "node:fs/promises";
import { Agent } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { CACHE_DIR, log, onCleanup, ROOT, runBench, timeBudget } from "./support/run";
import { startServer } from "./support/server";
import { imageSection } from "./upload/images";
import { IMAGE_CONCURRENCY, IMAGE_COUNT, parseOnly, PROFILE_DIR, TIME_BUDGET_MS } from "./upload/options";
import { report, type Section } from "./upload/report";
import { createUploaders, ensureClip, ensureJpeg, ensureVideo } from "./upload/seed";
import { runSink } from "./upload/sink";
import { videoSection } from "./upload/video";

async function main(only: "video" | "images" | null): Promise<void> {
  const { ensureBuild } = await import("../lib/server/build");
  // Before the clock starts: a build (when the sources changed) can take minutes and may
  // wait for another process's build; it is not what we measure.
  await ensureBuild(ROOT, { stdio: "pipe", log });

  const stopWatchdog = timeBudget(TIME_BUDGET_MS);

  await mkdir(CACHE_DIR, { recursive: true });
  log(`inputs in ${CACHE_DIR} (generated on the first run)`);
  const clip = await ensureClip();
  const video = only === "images" ? null : await ensureVideo(clip);
  const jpegPath = await ensureJpeg();
  const loadBefore = loadavg()[0];

  // One connection per upload, as uploader tools (ShareX, curl) do; with keep-alive a
  // request can land on a socket the server is just closing (ECONNRESET), a client-side race.
  const agent = new Agent({ keepAlive: false, maxSockets: IMAGE_CONCURRENCY + 8 });
  onCleanup(() => agent.destroy());

  // Server A: the embedded defaults, for the video and the default-config image burst.
  log("starting the production server (embedded defaults)");
  const serverA = await startServer({}, PROFILE_DIR);
  const [videoKey, ...keysA] = await createUploaders(serverA.dataDir, IMAGE_COUNT + 1);
  const sections: Section[] = [];
  if (video) sections.push(await videoSection(serverA, videoKey, video, clip, agent));
  if (only !== "video") sections.push(await imageSection(serverA, videoKey, keysA, jpegPath, agent));
  else await serverA.stop();
  stopWatchdog();

  report(sections, loadBefore);
}

if (process.argv[2] === "--sink") {
  runSink(process.argv[3] ?? tmpdir());
} else {
  runBench(() => main(parseOnly(process.argv)));
}
