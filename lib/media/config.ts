/**
 * Environment settings of the media layer, parsed once with zod (same `||` semantics as
 * lib/config/env.ts: an empty value means the default). Kept here rather than in the
 * global env schema so the media layer can be tested and reused on its own.
 */
import { availableParallelism } from "node:os";
import { z } from "zod";
import { parseEnv } from "../config/env";
import { optionalInt } from "../config/env-fields";

const schema = z.object({
  MEDIA_CONCURRENCY: optionalInt(1),
  MEDIA_QUEUE_MAX: optionalInt(0),
  MEDIA_TIMEOUT_SECONDS: optionalInt(1),
});

export type MediaConfig = {
  /** Media jobs (an ffmpeg/ffprobe process, a sharp pipeline, or a whole upload job) running at once. */
  concurrency: number;
  /** Jobs allowed to wait for a slot; one more is rejected at once with `unavailable`. */
  queueMax: number;
  /** Time budget of one job unless the caller passes a shorter one. */
  timeoutMs: number;
  /** Explicit binaries; unset means the ones shipped in @ffmpeg-installer / @ffprobe-installer. */
  ffmpegPath?: string;
  ffprobePath?: string;
};

/**
 * Two slots at least, even on a 2-core box: with one, a single five-minute transcode would
 * hold every image upload and probe behind it. Above that, one core is left for the web
 * server (ffmpeg children also run at a lower priority, see ffmpeg.ts).
 */
export function defaultConcurrency(cpus: number = availableParallelism()): number {
  return Math.max(2, cpus - 1);
}

export const DEFAULT_QUEUE_MAX = 8;
export const DEFAULT_TIMEOUT_SECONDS = 300;

export function parseMediaConfig(source: Record<string, string | undefined> = process.env): MediaConfig {
  const parsed = schema.safeParse(source);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`Invalid media setting ${issue?.path.join(".")}: ${issue?.message}`);
  }
  const env = parsed.data;
  // The binaries are service-wide settings, parsed with the others in lib/config/env.ts.
  const { FFMPEG_PATH, FFPROBE_PATH } = parseEnv(source);
  return {
    concurrency: env.MEDIA_CONCURRENCY ?? defaultConcurrency(),
    queueMax: env.MEDIA_QUEUE_MAX ?? DEFAULT_QUEUE_MAX,
    timeoutMs: (env.MEDIA_TIMEOUT_SECONDS ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
    ffmpegPath: FFMPEG_PATH,
    ffprobePath: FFPROBE_PATH,
  };
}

let cached: MediaConfig | undefined;
/** The media settings of this process, read on first use. */
export function mediaConfig(): MediaConfig {
  cached ??= parseMediaConfig();
  return cached;
}
/** Tests change process.env and call this (and resetMediaLimiter) to re-read it. */
export function resetMediaConfig(): void {
  cached = undefined;
}
