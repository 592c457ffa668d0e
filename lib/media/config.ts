/** The media layer's settings (docs/configuration.md), kept here so the layer can be tested on its own. */
import { availableParallelism } from "node:os";
import { z } from "zod";
import { setting } from "@/lib/config/env";
import { optionalInt } from "@/lib/config/env-fields";

const schema = z.object({
  MEDIA_CONCURRENCY: optionalInt(1),
  MEDIA_QUEUE_MAX: optionalInt(0),
  MEDIA_TIMEOUT_SECONDS: optionalInt(1),
  FFMPEG_SOURCE: z
    .string()
    .optional()
    .transform((v) => (v ?? "").trim().toLowerCase() || "auto")
    .pipe(z.enum(["auto", "system", "npm"], { error: "must be auto, system or npm" })),
  PATH: z.string().optional(),
});

/** FFMPEG_SOURCE: `auto` prefers the system's ffmpeg/ffprobe, `npm` uses the shipped builds, `system` requires the system's (tools.ts). */
export type MediaToolsSource = "auto" | "system" | "npm";

export type MediaConfig = {
  /** Media jobs (an ffmpeg/ffprobe process, a sharp pipeline, or a whole upload job) running at once. */
  concurrency: number;
  /** Jobs allowed to wait for a slot (one more is refused with `unavailable`); null: no count bound. */
  queueMax: number | null;
  /** Input bytes of the waiting jobs at most (the first waiter always gets in). */
  queueBytes: number;
  /** How long a job may wait for a slot before `unavailable`; 0: no time bound. */
  queueWaitMs: number;
  timeoutMs: number;
  /** Explicit binaries; unset means the system's on PATH, else the npm builds (tools.ts). */
  ffmpegPath?: string;
  ffprobePath?: string;
  toolsSource: MediaToolsSource;
  searchPath: string;
};

/**
 * Two slots at least, even on a 2-core box: with one, a single five-minute transcode would
 * hold every image upload and probe behind it. Above that, one core is left for the web
 * server (ffmpeg children also run at a lower priority, see ffmpeg.ts).
 */
export function defaultConcurrency(cpus: number = availableParallelism()): number {
  return Math.max(2, cpus - 1);
}

/**
 * The queue's bounds (docs/media.md, "Limits"): 4 GiB is a whole burst of screenshots or a few
 * large videos; two minutes is longer than 200 images take to drain on two cores and shorter
 * than common uploader tools' time-outs.
 */
export const DEFAULT_QUEUE_BYTES = 4 * 1024 ** 3;
export const DEFAULT_QUEUE_WAIT_SECONDS = 120;
export const DEFAULT_TIMEOUT_SECONDS = 300;

export function parseMediaConfig(source: Record<string, string | undefined> = process.env): MediaConfig {
  const parsed = schema.safeParse(source);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`Invalid media setting ${issue?.path.join(".")}: ${issue?.message}`);
  }
  const env = parsed.data;
  // The queue's bounds and the binaries are service-wide settings (README's table, the
  // container recipe): lib/config/env.ts holds their rules, read here one by one.
  return {
    concurrency: env.MEDIA_CONCURRENCY ?? defaultConcurrency(),
    queueMax: env.MEDIA_QUEUE_MAX ?? null,
    queueBytes: setting("MEDIA_QUEUE_BYTES", source) ?? DEFAULT_QUEUE_BYTES,
    queueWaitMs: (setting("MEDIA_QUEUE_WAIT_SECONDS", source) ?? DEFAULT_QUEUE_WAIT_SECONDS) * 1000,
    timeoutMs: (env.MEDIA_TIMEOUT_SECONDS ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
    ffmpegPath: setting("FFMPEG_PATH", source),
    ffprobePath: setting("FFPROBE_PATH", source),
    toolsSource: env.FFMPEG_SOURCE,
    searchPath: env.PATH ?? "",
  };
}

let cached: MediaConfig | undefined;
export function mediaConfig(): MediaConfig {
  cached ??= parseMediaConfig();
  return cached;
}
/** Tests: re-read process.env (with resetMediaLimiter). */
export function resetMediaConfig(): void {
  cached = undefined;
}
