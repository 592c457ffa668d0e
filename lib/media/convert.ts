/**
 * POST /convert on the upload building blocks (docs/convert.md). Nothing is stored: the caller
 * streams `output` back and deletes it. Plan checks and size caps are the endpoint's.
 */
import { readFile, rm, stat } from "node:fs/promises";
import type { Metadata } from "sharp";
import { DomainError } from "@/lib/errors";
import { mediaConfig } from "./config";
import { demuxerFor, fileArg, inputArgs, runFfmpeg, type Demuxer } from "./ffmpeg";
import {
  describeImage,
  describeOutput,
  keepsFrames,
  processImage,
  processImageBytes,
  readImageHeader,
  renderImage,
  renderImageBytes,
  targetType,
  type ImageResult,
  type ImageSource,
  type ImageTarget,
  type RenderOptions,
} from "./image";
import { inspectImage } from "./image-container";
import { JobClock, jobError } from "./job";
import { withMediaSlot } from "./limiter";
import { primaryAudio, primaryVideo } from "./probe";
import { probeInput } from "./probe-input";
import { imageError } from "./sharp";
import type { ImageFormat, Sniffed, SniffedFormat } from "./sniff";
import { CONVERT_COPY_VIDEO, onlyCopies, planMp4, writeMp4, writeWithoutRemux } from "./video";

export const CONVERT_TARGETS = ["png", "jpeg", "webp", "avif", "gif", "mp4", "mp3"] as const;
export type ConvertTarget = (typeof CONVERT_TARGETS)[number];

const STILL_TARGETS = ["png", "jpeg", "webp", "avif", "gif"] as const satisfies readonly ConvertTarget[];
/** The formats /convert takes (interface.md's matrix): WebM is an upload type only (issue 26 §1). */
export type ConvertSource = Exclude<SniffedFormat, "webm">;

/** The conversion matrix (docs/media.md, "Conversion (`convertFile`)"). Other pairs are unsupported_type. */
export const CONVERT_MATRIX: Readonly<Record<ConvertSource, readonly ConvertTarget[]>> = {
  png: STILL_TARGETS,
  jpeg: STILL_TARGETS,
  webp: STILL_TARGETS,
  gif: ["png", "jpeg", "webp", "avif", "mp4"],
  mp4: ["mp4", "gif", "mp3"],
  mov: ["mp4", "gif", "mp3"],
  mkv: ["mp4", "gif", "mp3"],
};

/** Video → GIF: first 10 s, 15 fps, 480 px wide, palette generated from the clip. */
export const VIDEO_GIF = { seconds: 10, fps: 15, width: 480 } as const;

export const isConvertTarget = (v: string): v is ConvertTarget => (CONVERT_TARGETS as readonly string[]).includes(v);

export const isImageTarget = (t: ConvertTarget): t is ImageTarget => (STILL_TARGETS as readonly string[]).includes(t);

export function canConvert(source: SniffedFormat, target: ConvertTarget): boolean {
  return source !== "webm" && CONVERT_MATRIX[source].includes(target);
}

/** Video → GIF needs Plus or Ultra (403 plan_required otherwise); the endpoint checks the plan. */
export function convertNeedsPlus(source: SniffedFormat, target: ConvertTarget): boolean {
  return (source === "mp4" || source === "mov" || source === "mkv") && target === "gif";
}

const OUTPUT_TYPES: Record<ConvertTarget, { mime: string; ext: string }> = {
  png: targetType("png"),
  jpeg: targetType("jpeg"),
  webp: targetType("webp"),
  avif: targetType("avif"),
  gif: targetType("gif"),
  mp4: { mime: "video/mp4", ext: "mp4" },
  mp3: { mime: "audio/mpeg", ext: "mp3" },
};

export function convertOutputType(target: ConvertTarget): { mime: string; ext: string } {
  return { ...OUTPUT_TYPES[target] };
}

export type ConvertOptions = {
  source: Sniffed;
  target: ConvertTarget;
  /** Default MEDIA_TIMEOUT_SECONDS; a request-bound caller should pass less. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The input is a temporary file the caller gives up: edited and moved rather than copied. */
  consumeInput?: boolean;
};

export type ConvertResult = {
  mime: string;
  ext: string;
  size: number;
  /** Images and GIF output (frame size); MP4 and MP3 output are not probed again. */
  width?: number;
  height?: number;
};

/** `output` is the caller's to delete. */
export async function convertFile(input: string, output: string, opts: ConvertOptions): Promise<ConvertResult> {
  const { source, target } = opts;
  if (!canConvert(source.format, target)) {
    throw new DomainError("unsupported_type", `A ${source.format.toUpperCase()} file cannot be converted to ${target}.`);
  }
  const budgetMs = opts.timeoutMs ?? mediaConfig().timeoutMs;
  return withMediaSlot(
    async () => {
      const clock = new JobClock(budgetMs, opts.signal);
      const isImageJob = source.kind === "image" && target !== "mp4";
      try {
        if (isImageJob) return await convertImage(input, output, source.format as ImageFormat, target as ImageTarget, budgetMs);
        const demuxer = demuxerFor(source.format as "mp4" | "mov" | "mkv" | "gif");
        if (target === "mp4") {
          const probe = await probeInput(input, { ...clock.run(), demuxer });
          const plan = planMp4(probe, CONVERT_COPY_VIDEO, demuxer);
          // An H.264 MP4 or MOV whose tracks are all copied needs no remux, as on upload: the
          // moov is moved to the front (a MOV's rewritten in MP4 form) and the metadata dropped
          // (docs/convert.md, "MP4 output").
          const fast =
            onlyCopies(probe, plan) &&
            (await writeWithoutRemux(source.format, input, output, {
              keepMetadata: false,
              withAudio: plan.audio !== undefined,
              consumeInput: opts.consumeInput === true,
            }));
          if (!fast) await writeMp4(input, output, plan, { keepMetadata: false, clock });
          // Not probed again: the caller sends bytes, and a second ffprobe is ~14 ms of a remux's ~45.
          const { size } = await stat(output);
          return { ...convertOutputType("mp4"), size };
        }
        if (target === "gif") return await videoToGif(input, output, demuxer, clock);
        return await videoToMp3(input, output, demuxer, clock);
      } catch (error) {
        await rm(output, { force: true });
        throw isImageJob ? imageError(error) : jobError(error, budgetMs, source.kind === "image" ? "image" : "video");
      }
    },
    { signal: opts.signal, input },
  );
}

async function convertImage(
  input: string,
  output: string,
  format: ImageFormat,
  target: ImageTarget,
  timeoutMs: number,
): Promise<ConvertResult> {
  if (target === format) {
    // Same format: the upload path, metadata stripped (lossless when nothing needs rotating).
    return resultOf(await processImage(input, output, { keepMetadata: false, format, timeoutMs }));
  }
  const meta = await readImageHeader(input, format);
  const info = await renderImage(input, output, await imageConversionOptions(input, format, target, meta, timeoutMs));
  return resultOf(describeOutput(info, target));
}

export type ConvertedBytes = ConvertResult & { bytes: Buffer };

/** convertFile in memory for a small image; null, before any pixel is decoded, when it is over IN_MEMORY_PIXELS. */
export async function convertImageBytes(input: Buffer, opts: ConvertOptions): Promise<ConvertedBytes | null> {
  const { source, target } = opts;
  if (source.kind !== "image" || !isImageTarget(target) || !canConvert(source.format, target)) {
    throw new DomainError("unsupported_type", `A ${source.format.toUpperCase()} file cannot be converted to ${target} in memory.`);
  }
  const format = source.format as ImageFormat;
  const timeoutMs = opts.timeoutMs ?? mediaConfig().timeoutMs;
  return withMediaSlot(
    async () => {
      try {
        const meta = await readImageHeader(input, format);
        if (outputPixels(meta, target) > IN_MEMORY_PIXELS) return null;
        if (target === format) {
          const { bytes, result } = await processImageBytes(input, { keepMetadata: false, format, timeoutMs, header: meta });
          return { ...resultOf(result), bytes };
        }
        const { bytes, info } = await renderImageBytes(input, await imageConversionOptions(input, format, target, meta, timeoutMs));
        return { ...resultOf(describeOutput(info, target)), bytes };
      } catch (error) {
        throw imageError(error);
      }
    },
    { signal: opts.signal, input },
  );
}

/**
 * Output pixels (all frames) of an in-memory conversion: a 5K screenshot. An encoded image is
 * never much larger than its raw pixels, so one output stays under ~70 MB, and the media
 * limiter bounds how many run.
 */
export const IN_MEMORY_PIXELS = 2 ** 24;

function outputPixels(meta: Metadata, target: ImageTarget): number {
  const pages = meta.pages ?? 1;
  const frameHeight = pages > 1 ? (meta.pageHeight ?? meta.height / pages) : meta.height;
  return meta.width * frameHeight * (keepsFrames(target) ? pages : 1);
}

export async function imageConversionOptions(
  input: ImageSource,
  format: ImageFormat,
  target: ImageTarget,
  meta: Metadata,
  timeoutMs: number,
): Promise<RenderOptions> {
  return {
    target,
    keepMetadata: false,
    keepFrames: (meta.pages ?? 1) > 1, // GIF ⇄ WebP keep the animation; PNG/JPEG/AVIF get the first frame
    lossless: await isLosslessSource(input, format),
    meta,
    timeoutMs,
  };
}

const resultOf = ({ mime, ext, size, width, height }: ImageResult): ConvertResult => ({ mime, ext, size, width, height });

/** PNG and GIF are lossless; a WebP is when all its frames are VP8L. Lossless stays lossless in WebP. */
async function isLosslessSource(input: ImageSource, format: ImageFormat): Promise<boolean> {
  if (format !== "webp") return format !== "jpeg";
  if (Buffer.isBuffer(input)) return inspectImage(input, "webp")?.lossless ?? false;
  const { size } = await stat(input);
  if (size > 64 * 1024 * 1024) return false;
  return inspectImage(await readFile(input), "webp")?.lossless ?? false;
}

async function videoToGif(input: string, output: string, demuxer: Demuxer, clock: JobClock): Promise<ConvertResult> {
  const video = primaryVideo(await probeInput(input, { ...clock.run(), demuxer }));
  if (!video) throw new DomainError("invalid_request", "The file has no playable video track.");
  await runFfmpeg(videoToGifArgs(input, output, video.index, demuxer), clock.run());
  const { mime, ext, size, width: w, height } = await describeImage(output, "gif");
  return { mime, ext, size, width: w, height };
}

export function videoToGifArgs(input: string, output: string, videoIndex: number, demuxer: Demuxer): string[] {
  const { seconds, fps, width } = VIDEO_GIF;
  // One pass: split the scaled frames, build a palette from one copy, map the other onto it.
  // stats_mode=diff + rectangle diff mode favour the moving parts and keep files small.
  const graph =
    `[0:${videoIndex}]fps=${fps},scale=${width}:-1:flags=lanczos,split[a][b];` +
    `[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=bayer:bayer_scale=5:diff_mode=rectangle`;
  return [
    "-t",
    String(seconds),
    ...inputArgs(input, demuxer),
    "-filter_complex",
    graph,
    "-an",
    "-map_metadata",
    "-1",
    "-loop",
    "0",
    "-f",
    "gif",
    fileArg(output),
  ];
}

async function videoToMp3(input: string, output: string, demuxer: Demuxer, clock: JobClock): Promise<ConvertResult> {
  const audio = primaryAudio(await probeInput(input, { ...clock.run(), demuxer }));
  if (!audio) throw new DomainError("unsupported_type", "The video has no audio track to convert to MP3.");
  await runFfmpeg(videoToMp3Args(input, output, audio.index, demuxer), clock.run());
  const { size } = await stat(output);
  return { ...convertOutputType("mp3"), size };
}

export function videoToMp3Args(input: string, output: string, audioIndex: number, demuxer: Demuxer): string[] {
  return [
    ...inputArgs(input, demuxer),
    "-map",
    `0:${audioIndex}`,
    "-vn",
    "-c:a",
    "libmp3lame",
    "-q:a",
    "2", // VBR ~190 kb/s
    "-map_metadata",
    "-1",
    "-id3v2_version",
    "0",
    "-f",
    "mp3",
    fileArg(output),
  ];
}
