/** ffprobe's JSON, normalised. The schema is lenient on purpose: ffprobe builds differ (npm's is 2023). */
import { z } from "zod";

const num = z.union([z.number(), z.string()]).transform((v) => Number(v));
const tags = z.record(z.string(), z.union([z.string(), z.number()]).transform(String));

const streamSchema = z.object({
  index: z.number().int(),
  codec_type: z.string().optional(),
  codec_name: z.string().optional(),
  codec_tag_string: z.string().optional(),
  profile: z.string().optional(),
  pix_fmt: z.string().optional(),
  width: z.number().int().optional(),
  height: z.number().int().optional(),
  duration: num.optional(),
  avg_frame_rate: z.string().optional(),
  nb_frames: num.optional(),
  disposition: z.object({ attached_pic: z.number().optional() }).partial().optional(),
  tags: tags.optional(),
  side_data_list: z.array(z.object({ side_data_type: z.string().optional(), rotation: num.optional() })).optional(),
});

const probeSchema = z.object({
  streams: z.array(streamSchema).default([]),
  format: z
    .object({
      format_name: z.string().optional(),
      duration: num.optional(),
      size: num.optional(),
      tags: tags.optional(),
    })
    .optional(),
});

export type ProbeStream = {
  index: number;
  codecType: string;
  codecName: string;
  codecTag?: string;
  pixFmt?: string;
  /** Stored (coded) size; see displaySize for what a player shows. */
  width?: number;
  height?: number;
  duration?: number;
  /** Clockwise degrees a player turns the picture: 0, 90, 180 or 270. */
  rotation: number;
  attachedPic: boolean;
  tags: Record<string, string>;
};

export type ProbeResult = {
  formatName: string;
  duration?: number;
  size?: number;
  tags: Record<string, string>;
  streams: ProbeStream[];
};

/**
 * Rotation lives in two places depending on the ffprobe build: old builds expose the
 * `rotate` tag (clockwise degrees), builds from 5.x on only the display matrix side data,
 * whose `rotation` is counter-clockwise. Both become clockwise 0/90/180/270.
 */
function rotationOf(s: z.infer<typeof streamSchema>): number {
  const tag = s.tags?.rotate;
  let cw = 0;
  if (tag !== undefined && Number.isFinite(Number(tag))) cw = Number(tag);
  else {
    const matrix = s.side_data_list?.find((d) => d.rotation !== undefined && Number.isFinite(d.rotation));
    if (matrix?.rotation !== undefined) cw = -matrix.rotation;
  }
  const quarter = Math.round(cw / 90) * 90;
  return ((quarter % 360) + 360) % 360;
}

const finite = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? n : undefined);

export function parseProbeJson(json: unknown): ProbeResult {
  const data = probeSchema.parse(json);
  return {
    formatName: data.format?.format_name ?? "",
    duration: finite(data.format?.duration),
    size: finite(data.format?.size),
    tags: data.format?.tags ?? {},
    streams: data.streams.map((s) => ({
      index: s.index,
      codecType: s.codec_type ?? "unknown",
      codecName: s.codec_name ?? "unknown",
      codecTag: s.codec_tag_string,
      pixFmt: s.pix_fmt,
      width: s.width,
      height: s.height,
      duration: finite(s.duration),
      rotation: rotationOf(s),
      attachedPic: s.disposition?.attached_pic === 1,
      tags: s.tags ?? {},
    })),
  };
}

export function primaryVideo(probe: ProbeResult): ProbeStream | undefined {
  return probe.streams.find((s) => s.codecType === "video" && !s.attachedPic && (s.width ?? 0) > 0 && (s.height ?? 0) > 0);
}

export function primaryAudio(probe: ProbeResult): ProbeStream | undefined {
  return probe.streams.find((s) => s.codecType === "audio");
}

/** Width and height as shown: swapped when the player turns the picture a quarter. */
export function displaySize(stream: ProbeStream): { width: number; height: number } {
  const w = stream.width ?? 0;
  const h = stream.height ?? 0;
  return stream.rotation === 90 || stream.rotation === 270 ? { width: h, height: w } : { width: w, height: h };
}

export function durationOf(probe: ProbeResult, video?: ProbeStream): number | undefined {
  return probe.duration ?? video?.duration;
}
