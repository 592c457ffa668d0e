/**
 * HLS renditions of a stored MP4 (docs/renditions.md). We write the master playlist ourselves so
 * BANDWIDTH is measured from the real segments. One ffmpeg decodes the source once for every
 * rendition, in one media slot with bounded threads, so a transcode never starves the web server.
 */
import { availableParallelism } from "node:os";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DomainError } from "@/lib/errors";
import { mediaConfig } from "./config";
import { fileArg, inputArgs, isMediaToolError, runFfmpeg } from "./ffmpeg";
import { probeInput } from "./probe-input";
import { jobError } from "./job";
import { displaySize, durationOf, primaryAudio, primaryVideo } from "./probe";

export interface Rendition {
  /** "360p", "720p", "1080p" (or the source's own short side when it is below 360). */
  name: string;
  width: number;
  height: number;
  /** Peak video bitrate cap (bits/s) and the VBV buffer. */
  maxrate: number;
}

export interface HlsResult {
  renditions: (Rendition & { bandwidth: number; segments: number })[];
  duration: number;
  files: string[];
}

export interface HlsOptions {
  /** Budget of the ffmpeg run; default max(MEDIA_TIMEOUT_SECONDS, 10 × duration). */
  timeoutMs?: number;
  signal?: AbortSignal;
  threads?: number;
  /** Target segment length in seconds (4–6 s). */
  segmentSeconds?: number;
}

export const MASTER_PLAYLIST = "master.m3u8";
export const HLS_SEGMENT_SECONDS = 4;
const LADDER: readonly { short: number; maxrate: number }[] = [
  { short: 360, maxrate: 900_000 },
  { short: 720, maxrate: 3_000_000 },
  { short: 1080, maxrate: 6_000_000 },
];
const AUDIO_BITRATE = 128_000;
/** Main profile level 4.0: plays on every HLS client (hls.js, Safari, Android, TVs) up to 1080p30. */
const VIDEO_CODEC = "avc1.4d4028";
const AUDIO_CODEC = "mp4a.40.2";

export const HLS_CONTENT_TYPES: Readonly<Record<string, string>> = {
  m3u8: "application/vnd.apple.mpegurl",
  ts: "video/mp2t",
};

/** HLS_THREADS: ffmpeg threads of one HLS run; unset or empty: half the CPUs. A bad value is refused (lib/server/settings.ts). */
export function hlsThreads(source: Record<string, string | undefined> = process.env): number {
  const raw = (source.HLS_THREADS ?? "").trim();
  if (!raw) return Math.max(1, Math.floor(availableParallelism() / 2));
  const n = Number(raw);
  if (Number.isInteger(n) && n >= 1) return n;
  throw new Error(`Invalid setting HLS_THREADS: must be an integer >= 1, got ${JSON.stringify(raw)}`);
}

const X264_PRESETS = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"];

/** HLS_X264_PRESET (default veryfast): slower presets give smaller segments for more CPU. */
export function hlsPreset(source: Record<string, string | undefined> = process.env): string {
  const p = (source.HLS_X264_PRESET ?? "").trim();
  if (!p) return "veryfast";
  if (X264_PRESETS.includes(p)) return p;
  throw new Error(`Invalid setting HLS_X264_PRESET: must be one of ${X264_PRESETS.join(", ")}, got ${JSON.stringify(p)}`);
}

const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);

/** Renditions for a source of width × height (display orientation): never larger than the source. */
export function planRenditions(width: number, height: number): Rendition[] {
  const short = Math.min(width, height);
  const landscape = width >= height;
  const size = (s: number) => {
    const long = even((Math.max(width, height) * s) / short);
    return landscape ? { width: long, height: even(s) } : { width: even(s), height: long };
  };
  const fits = LADDER.filter((r) => r.short <= short);
  if (!fits.length) return [{ name: `${even(short)}p`, ...size(short), maxrate: LADDER[0].maxrate }];
  return fits.map((r) => ({ name: `${r.short}p`, ...size(r.short), maxrate: r.maxrate }));
}

/** `outDir` must exist and be empty. */
export async function transcodeHls(input: string, outDir: string, opts: HlsOptions = {}): Promise<HlsResult> {
  const probe = await probeInput(input, { demuxer: "mov", signal: opts.signal });
  const video = primaryVideo(probe);
  if (!video) throw new DomainError("invalid_request", "The file has no playable video track.");
  const audio = primaryAudio(probe);
  const { width, height } = displaySize(video);
  const duration = durationOf(probe, video) ?? 0;
  const renditions = planRenditions(width, height);
  const budgetMs = opts.timeoutMs ?? Math.max(mediaConfig().timeoutMs, Math.ceil(duration * 10_000));
  const run: HlsRun = {
    input,
    outDir,
    videoIndex: video.index,
    audioIndex: audio?.index ?? null,
    renditions,
    threads: opts.threads ?? hlsThreads(),
    preset: hlsPreset(),
    segmentSeconds: opts.segmentSeconds ?? HLS_SEGMENT_SECONDS,
  };

  await runHlsFfmpeg(hlsArgs(run), budgetMs, opts.signal);

  const done: HlsResult["renditions"] = [];
  for (const r of renditions) done.push(await measureRendition(outDir, r));
  await writeFile(join(outDir, MASTER_PLAYLIST), masterPlaylist(done, audio !== undefined));
  return { renditions: done, duration, files: (await readdir(outDir)).sort() };
}

interface HlsRun {
  input: string;
  outDir: string;
  videoIndex: number;
  audioIndex: number | null;
  renditions: readonly Rendition[];
  threads: number;
  preset: string;
  segmentSeconds: number;
}

function hlsArgs(run: HlsRun): string[] {
  const split = run.renditions.map((_, i) => `[v${i}]`).join("");
  const scales = run.renditions.map((r, i) => `[v${i}]scale=${r.width}:${r.height},setsar=1[o${i}]`);
  return [
    "-threads",
    String(run.threads),
    "-filter_threads",
    "1",
    ...inputArgs(run.input, "mov"),
    "-filter_complex",
    [`[0:${run.videoIndex}]split=${run.renditions.length}${split}`, ...scales].join(";"),
    ...run.renditions.flatMap((r, i) => renditionOutputArgs(run, r, `[o${i}]`)),
  ];
}

/** The output of one rendition: H.264 Main 4.0 (+ AAC stereo) in MPEG-TS segments and its media playlist. */
function renditionOutputArgs(run: HlsRun, r: Rendition, scaledVideo: string): string[] {
  const audio = run.audioIndex !== null;
  return [
    "-map",
    scaledVideo,
    ...(audio ? ["-map", `0:${run.audioIndex}`] : []),
    "-c:v",
    "libx264",
    "-preset",
    run.preset,
    "-profile:v",
    "main",
    "-level:v",
    "4.0",
    "-pix_fmt",
    "yuv420p",
    "-crf",
    "23",
    "-maxrate",
    String(r.maxrate),
    "-bufsize",
    String(r.maxrate * 2),
    "-threads",
    String(run.threads),
    // A keyframe every segment boundary and none from scene cuts: segments of equal length.
    "-force_key_frames",
    `expr:gte(t,n_forced*${run.segmentSeconds})`,
    "-sc_threshold",
    "0",
    ...(audio ? ["-c:a", "aac", "-b:a", String(AUDIO_BITRATE), "-ac", "2"] : []),
    "-map_metadata",
    "-1",
    "-map_chapters",
    "-1",
    "-f",
    "hls",
    "-hls_time",
    String(run.segmentSeconds),
    "-hls_playlist_type",
    "vod",
    "-hls_list_size",
    "0",
    "-hls_segment_type",
    "mpegts",
    "-hls_segment_filename",
    fileArg(join(run.outDir, `${r.name}_%04d.ts`)),
    "-max_muxing_queue_size",
    "4096",
    fileArg(join(run.outDir, `${r.name}.m3u8`)),
  ];
}

async function runHlsFfmpeg(args: string[], budgetMs: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await runFfmpeg(args, { timeoutMs: budgetMs, signal });
  } catch (error) {
    // Over the limit usually means a busy machine, not a bad file: retryable (unavailable),
    // unlike an ffmpeg error on the file itself (invalid_request, final).
    if (isMediaToolError(error) && error.reason === "timeout") {
      throw new DomainError("unavailable", `The HLS transcode took longer than ${Math.round(budgetMs / 1000)} s.`);
    }
    throw jobError(error, budgetMs, "video");
  }
}

/**
 * A written rendition's segment count and BANDWIDTH: the peak rate of its segments as
 * written, which the master playlist must not understate (players pick variants by it).
 */
async function measureRendition(outDir: string, r: Rendition): Promise<HlsResult["renditions"][number]> {
  const playlist = parseMediaPlaylist(await readFile(join(outDir, `${r.name}.m3u8`), "utf8"));
  if (!playlist.segments.length) throw new DomainError("internal", `The ${r.name} rendition has no segments.`);
  let peak = 0;
  for (const s of playlist.segments) {
    const { size } = await stat(join(outDir, s.uri));
    // Short tail segments overstate the rate; count them as at least one second.
    peak = Math.max(peak, (size * 8) / Math.max(1, s.duration));
  }
  return { ...r, bandwidth: Math.ceil(peak), segments: playlist.segments.length };
}

/** The master playlist: one variant per rendition, lowest first (players start there). */
export function masterPlaylist(renditions: readonly (Rendition & { bandwidth: number })[], withAudio: boolean): string {
  const codecs = withAudio ? `${VIDEO_CODEC},${AUDIO_CODEC}` : VIDEO_CODEC;
  const lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-INDEPENDENT-SEGMENTS"];
  for (const r of renditions) {
    lines.push(`#EXT-X-STREAM-INF:BANDWIDTH=${r.bandwidth},RESOLUTION=${r.width}x${r.height},CODECS="${codecs}"`, `${r.name}.m3u8`);
  }
  return `${lines.join("\n")}\n`;
}

export interface MediaPlaylist {
  targetDuration: number;
  segments: { uri: string; duration: number }[];
  ended: boolean;
}

export function parseMediaPlaylist(text: string): MediaPlaylist {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  if (lines[0] !== "#EXTM3U") throw new Error("not an M3U8 playlist");
  const segments: MediaPlaylist["segments"] = [];
  let targetDuration = 0;
  let pending: number | null = null;
  for (const line of lines) {
    if (line.startsWith("#EXT-X-TARGETDURATION:")) targetDuration = Number(line.slice(22));
    else if (line.startsWith("#EXTINF:")) pending = Number.parseFloat(line.slice(8));
    else if (line && !line.startsWith("#") && pending !== null) {
      segments.push({ uri: line, duration: pending });
      pending = null;
    }
  }
  return { targetDuration, segments, ended: lines.includes("#EXT-X-ENDLIST") };
}

/** Rounded-up whole minutes of a duration in seconds (what priority delivery costs). */
export const minutesOf = (seconds: number): number => Math.max(1, Math.ceil(seconds / 60 - 1e-9));
