/**
 * Video uploads → fast-start MP4 + JPEG thumbnail, and the MP4 writer /convert shares (probe →
 * plan → remux or transcode → verify). Which tracks are copied, transcoded or dropped, and why,
 * is in docs/media.md, "Videos". Files whose tracks are all copied skip ffmpeg: its +faststart
 * writes a 1 GB file twice.
 */
import { rm, stat } from "node:fs/promises";
import { DomainError } from "@/lib/errors";
import { mediaConfig } from "./config";
import { demuxerFor, fileArg, inputArgs, isMediaToolError, runFfmpeg, type Demuxer, type RunOptions } from "./ffmpeg";
import { fastStart, type FastStartOptions } from "./faststart";
import { JobClock, jobError } from "./job";
import { withMediaSlot } from "./limiter";
import { matroskaToMp4 } from "./matroska-to-mp4";
import { movToMp4 } from "./mov-to-mp4";
import { probeInput } from "./probe-input";
import { displaySize, durationOf, primaryAudio, primaryVideo, type ProbeResult, type ProbeStream } from "./probe";
import { settleAll } from "./settle";
import { openImage } from "./sharp";
import { sniffFile, type SniffedFormat, type VideoFormat } from "./sniff";

export type VideoResult = {
  /** As displayed (rotation applied). */
  width: number;
  height: number;
  duration: number;
  size: number;
  mime: "video/mp4";
  ext: "mp4";
  thumbnail: { width: number; height: number; mime: "image/jpeg"; size: number };
  transcoded: boolean;
};

export type ProcessVideoOptions = {
  keepMetadata: boolean;
  /** Budget for the whole job (probe, remux/transcode, thumbnail). Default MEDIA_TIMEOUT_SECONDS. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** When the caller has sniffed the bytes already (an upload is sniffed once); sniffed here when absent. */
  format?: VideoFormat;
  /** The input is a temporary file the caller gives up: edited and moved rather than copied. */
  consumeInput?: boolean;
};

export type CopyPolicy = (video: ProbeStream) => boolean;

/** H.264 as browsers decode it: 8-bit 4:2:0. High 10 / 4:2:2 / 4:4:4 (anime rips, screen captures) play almost nowhere. */
const H264_PLAYABLE_PIXFMT: ReadonlySet<string> = new Set(["yuv420p", "yuvj420p"]);
const OTHER_COPYABLE: ReadonlySet<string> = new Set(["hevc", "av1", "vp9"]);

export const UPLOAD_COPY_VIDEO: CopyPolicy = (v) =>
  OTHER_COPYABLE.has(v.codecName) || (v.codecName === "h264" && (v.pixFmt === undefined || H264_PLAYABLE_PIXFMT.has(v.pixFmt)));
/** WebM: VP8 plays from no MP4, and VP9/AV1 in MP4 not in Safari on most devices, so only H.264 is copied. */
export const WEBM_COPY_VIDEO: CopyPolicy = (v) => v.codecName === "h264" && (v.pixFmt === undefined || H264_PLAYABLE_PIXFMT.has(v.pixFmt));
/** /convert's rule: "remuxed with fast-start when the source is H.264, transcoded otherwise". */
export const CONVERT_COPY_VIDEO: CopyPolicy = (v) => v.codecName === "h264";
export const COPY_AUDIO: ReadonlySet<string> = new Set(["aac", "mp3"]);

export const X264_ARGS = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p"] as const;
export const AAC_ARGS = ["-c:a", "aac", "-b:a", "128k"] as const;
export const THUMBNAIL_MAX_WIDTH = 1280;

export async function processVideo(input: string, output: string, thumbnail: string, opts: ProcessVideoOptions): Promise<VideoResult> {
  const budgetMs = opts.timeoutMs ?? mediaConfig().timeoutMs;
  return withMediaSlot(
    async () => {
      const clock = new JobClock(budgetMs, opts.signal);
      try {
        // The container is forced from the bytes, so ffmpeg never guesses another format.
        const format = opts.format ?? (await sniffedVideoFormat(input));
        const demuxer = demuxerFor(format);
        const probe = await probeInput(input, { ...clock.run(), demuxer });
        const plan = planMp4(probe, format === "webm" ? WEBM_COPY_VIDEO : UPLOAD_COPY_VIDEO, demuxer);
        const fast =
          onlyCopies(probe, plan) &&
          (await writeWithoutRemux(format, input, output, {
            keepMetadata: opts.keepMetadata,
            withAudio: plan.audio !== undefined,
            consumeInput: opts.consumeInput === true,
          }));
        const { transcoded } = fast
          ? { transcoded: false }
          : await writeMp4(input, output, plan, { keepMetadata: opts.keepMetadata, clock });
        const duration = durationOf(probe, plan.video) ?? 0;
        // An MP4 given fast start without a remux keeps its moov's tracks as they were (only
        // chunk offsets and metadata boxes change): the input's probe describes the output.
        const known = fast && format === "mp4" ? await describedFrom(probe, output) : undefined;
        const [out, thumb] = await checkWritten(output, thumbnail, duration, clock, known);
        return { ...out, mime: "video/mp4", ext: "mp4", thumbnail: thumb, transcoded };
      } catch (error) {
        await Promise.all([rm(output, { force: true }), rm(thumbnail, { force: true })]);
        throw jobError(error, budgetMs, "video");
      }
    },
    { signal: opts.signal, input },
  );
}

async function sniffedVideoFormat(input: string): Promise<VideoFormat> {
  const sniffed = await sniffFile(input);
  if (sniffed?.kind !== "video") throw new DomainError("invalid_request", "The file is not an MP4, MOV, MKV or WebM video.");
  return sniffed.format as VideoFormat;
}

/** Resolves false, with nothing written, when the file is not its simple case. */
type Rewrite = (input: string, output: string, opts: FastStartOptions) => Promise<boolean>;
const WITHOUT_REMUX: Readonly<Partial<Record<SniffedFormat, Rewrite>>> = {
  mp4: fastStart,
  mov: movToMp4,
  mkv: matroskaToMp4,
};

/** The fast-start MP4 of a file whose tracks are all copied, without ffmpeg; false when the caller has to remux. */
export async function writeWithoutRemux(format: SniffedFormat, input: string, output: string, opts: FastStartOptions): Promise<boolean> {
  const rewrite = WITHOUT_REMUX[format];
  return rewrite ? rewrite(input, output, opts) : false;
}

export function onlyCopies(probe: ProbeResult, plan: Mp4Plan): boolean {
  return plan.copyVideo && (plan.audio === undefined || plan.copyAudio) && probe.streams.length === (plan.audio ? 2 : 1);
}

export type Mp4Plan = {
  demuxer: Demuxer;
  video: ProbeStream;
  audio?: ProbeStream;
  copyVideo: boolean;
  copyAudio: boolean;
};

export function planMp4(probe: ProbeResult, canCopy: CopyPolicy, demuxer: Demuxer): Mp4Plan {
  const video = primaryVideo(probe);
  if (!video) {
    // Name what the file is (issue 39 §5): an audio recording in a video container, usually.
    const what = primaryAudio(probe) ? "It is audio only" : "It holds no video track";
    throw new DomainError("invalid_request", `The file has no playable video track. ${what}.`);
  }
  const audio = primaryAudio(probe);
  return {
    demuxer,
    video,
    audio,
    copyVideo: canCopy(video),
    copyAudio: audio !== undefined && COPY_AUDIO.has(audio.codecName),
  };
}

/** A copy that the muxer rejects is retried as a transcode. */
export async function writeMp4(
  input: string,
  output: string,
  plan: Mp4Plan,
  o: { keepMetadata: boolean; clock: JobClock },
): Promise<{ transcoded: boolean }> {
  if (plan.copyVideo) {
    try {
      await runFfmpeg(mp4Args(input, output, plan, "copy", o.keepMetadata), o.clock.run());
      return { transcoded: false };
    } catch (error) {
      // Only a muxing failure is worth a second try; timeouts and aborts are final.
      if (!isMediaToolError(error) || error.reason !== "exit") throw error;
    }
  }
  await runFfmpeg(mp4Args(input, output, plan, "transcode", o.keepMetadata), o.clock.run());
  return { transcoded: true };
}

function mp4Args(input: string, output: string, plan: Mp4Plan, mode: "copy" | "transcode", keepMetadata: boolean): string[] {
  const args = [...inputArgs(input, plan.demuxer), "-map", `0:${plan.video.index}`];
  if (plan.audio) args.push("-map", `0:${plan.audio.index}`);
  if (mode === "copy") {
    args.push("-c:v", "copy");
    // hev1 (ffmpeg's default tag) does not play in Safari/QuickTime; hvc1 plays everywhere.
    if (plan.video.codecName === "hevc") args.push("-tag:v", "hvc1");
  } else {
    // yuv420p needs even sizes; vfr passes source timestamps through instead of
    // duplicating frames up to a nominal rate (GIF and phone footage are variable-rate).
    args.push(...X264_ARGS, "-vf", "scale=trunc(iw/2)*2:trunc(ih/2)*2", "-vsync", "vfr");
  }
  if (plan.audio) args.push(...(plan.copyAudio ? ["-c:a", "copy"] : AAC_ARGS));
  if (keepMetadata) args.push("-map_metadata", "0", "-movflags", "+faststart+use_metadata_tags");
  else args.push("-map_metadata", "-1", "-map_chapters", "-1", "-movflags", "+faststart");
  // Avoids "Too many packets buffered" with sparse or late-starting audio in ffmpeg 4.x.
  args.push("-max_muxing_queue_size", "4096", "-f", "mp4", fileArg(output));
  return args;
}

export type Mp4Description = { width: number; height: number; duration: number; size: number };

export async function describeMp4(path: string, run: RunOptions): Promise<Mp4Description> {
  return describedFrom(await probeInput(path, { ...run, demuxer: "mov" }), path);
}

/** The description of `path` from a probe that holds its tracks (its own, or its input's when only offsets moved). */
async function describedFrom(probe: ProbeResult, path: string): Promise<Mp4Description> {
  const video = primaryVideo(probe);
  if (!video) throw new DomainError("invalid_request", "The file has no playable video track.");
  const { width, height } = displaySize(video);
  const duration = Math.round((durationOf(probe, video) ?? 0) * 1000) / 1000;
  const { size } = await stat(path);
  return { width, height, duration, size };
}

/**
 * The probe, the first second's decode with the still frame, and the last second's decode of
 * the written MP4, side by side, so an upload's reply waits for the longest, not their sum
 * (docs/performance.md, "Uploads"). A failure is reported in argument order: probe, start, end.
 */
async function checkWritten(
  output: string,
  thumbnail: string,
  duration: number,
  clock: JobClock,
  known?: Mp4Description,
): Promise<[Mp4Description, VideoResult["thumbnail"]]> {
  const described = known ? Promise.resolve(known) : describeMp4(output, clock.run());
  const [out, thumb] = await settleAll([
    described,
    verifyStartWithStill(output, thumbnail, duration, clock),
    described.then((d) => verifyWindows(output, d.duration || duration, clock, "end")),
  ]);
  return [out, thumb];
}

export const DECODE_CHECK_SECONDS = 1;

/**
 * Refuses a video whose frames do not decode (a file cut short or with flipped bytes plays
 * nowhere): the first and last second are decoded inside the job's budget; a window with no
 * frame at all (the data ends before the index says) fails too.
 */
export async function verifyDecodes(video: string, duration: number, clock: JobClock): Promise<void> {
  await verifyWindows(video, duration, clock, "start");
  await verifyWindows(video, duration, clock, "end");
}

/** The end's window only where the video is longer than both windows. */
async function verifyWindows(video: string, duration: number, clock: JobClock, which: "start" | "end"): Promise<void> {
  const last = Math.max(0, duration - DECODE_CHECK_SECONDS);
  const starts = which === "start" ? [0] : last > DECODE_CHECK_SECONDS ? [last] : [];
  for (const at of starts) {
    let decoded = 0;
    try {
      await runFfmpeg(
        [
          "-xerror",
          ...(at > 0 ? ["-ss", at.toFixed(3)] : []),
          ...inputArgs(video, "mov"),
          ...["-map", "0:v:0", "-t", String(DECODE_CHECK_SECONDS), "-f", "null", "-"],
        ],
        { ...clock.run(), onProgress: (p) => (decoded = Math.max(decoded, p.outTimeSeconds)) },
      );
    } catch (error) {
      if (isMediaToolError(error) && error.reason === "exit") throw corruptVideo(at === 0 ? "start" : "end");
      throw error;
    }
    // A still-image clip decodes one frame at time 0: only a window with no progress report at all is empty.
    if (decoded <= 0 && duration > DECODE_CHECK_SECONDS) throw corruptVideo(at === 0 ? "start" : "end");
  }
}

/**
 * The first second's decode check and the still frame in one ffmpeg run. Both decode the
 * video's start (the still is the first frame at or after 1 s, as `-ss 1` finds it): run
 * apart, the still cost a second decode, a third of the CPU after an upload's last byte.
 * Where the run gives no still (a video track that ends before 1 s), writeThumbnail tries
 * the first frame.
 */
async function verifyStartWithStill(
  video: string,
  thumbnail: string,
  duration: number,
  clock: JobClock,
): Promise<VideoResult["thumbnail"]> {
  const at = duration >= 2 ? 1 : 0;
  const still = `${at > 0 ? `trim=start=${at},` : ""}scale='min(${THUMBNAIL_MAX_WIDTH},iw)':-2`;
  let decoded = 0;
  try {
    await runFfmpeg(
      [
        "-xerror",
        ...inputArgs(video, "mov"),
        ...["-filter_complex", `[0:v:0]split=2[window][still];[still]${still}[thumb]`],
        ...["-map", "[window]", "-t", String(DECODE_CHECK_SECONDS), "-f", "null", "-"],
        ...["-map", "[thumb]", "-frames:v", "1", "-q:v", "3", "-f", "image2", "-update", "1", fileArg(thumbnail)],
      ],
      { ...clock.run(), onProgress: (p) => (decoded = Math.max(decoded, p.outTimeSeconds)) },
    );
  } catch (error) {
    if (isMediaToolError(error) && error.reason === "exit") throw corruptVideo("start");
    throw error;
  }
  if (decoded <= 0 && duration > DECODE_CHECK_SECONDS) throw corruptVideo("start");
  const written = await thumbnailOf(thumbnail);
  return written ?? writeThumbnail(video, thumbnail, 0, clock);
}

async function thumbnailOf(path: string): Promise<VideoResult["thumbnail"] | null> {
  const size = await stat(path).then(
    (s) => s.size,
    () => 0,
  );
  if (size === 0) return null;
  const meta = await openImage(path).metadata();
  return { width: meta.width, height: meta.height, mime: "image/jpeg", size };
}

const corruptVideo = (where: "start" | "end") =>
  new DomainError("invalid_request", `The video is corrupt or cut short: its frames at the ${where} do not decode.`);

/** A JPEG still from about 1 s in (the first frame of clips under 2 s, or when seeking yields nothing). */
export async function writeThumbnail(
  video: string,
  thumbnail: string,
  duration: number,
  clock: JobClock,
): Promise<VideoResult["thumbnail"]> {
  const offsets = duration >= 2 ? [1, 0] : [0];
  for (const at of offsets) {
    await runFfmpeg(
      [
        "-ss",
        String(at),
        ...inputArgs(video, "mov"),
        "-map",
        "0:v:0",
        "-frames:v",
        "1",
        "-vf",
        `scale='min(${THUMBNAIL_MAX_WIDTH},iw)':-2`,
        "-q:v",
        "3",
        "-f",
        "image2",
        "-update",
        "1",
        fileArg(thumbnail),
      ],
      clock.run(),
    );
    const written = await thumbnailOf(thumbnail);
    if (written) return written;
  }
  throw new DomainError("invalid_request", "No frame of the video could be decoded.");
}
