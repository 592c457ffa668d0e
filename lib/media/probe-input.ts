/**
 * The probe every video job starts with: from the container's own boxes or elements where they
 * can say, a few reads instead of an ffprobe process (~13 ms, half a remux: docs/performance.md,
 * "MP4 and MOV probed from their boxes"); else ffprobe.
 */
import { runFfprobe, type Demuxer, type ProbeOptions } from "./ffmpeg";
import { probeMatroska } from "./matroska-probe";
import { probeMp4Boxes } from "./mp4-probe";
import type { ProbeResult } from "./probe";

/** The reader for each demuxer that has one; null from it means "ask ffprobe". */
const READERS: Readonly<Partial<Record<Demuxer, (path: string) => Promise<ProbeResult | null>>>> = {
  mov: probeMp4Boxes,
  matroska: probeMatroska,
};

export async function probeInput(path: string, opts: ProbeOptions & { demuxer: Demuxer }): Promise<ProbeResult> {
  const reader = READERS[opts.demuxer];
  const read = reader ? await reader(path) : null;
  return read ?? runFfprobe(path, opts);
}
