/**
 * The probe every video job starts with. MP4 and MOV (the `mov` demuxer) are read from their
 * boxes (lib/media/mp4-probe.ts), which costs a few file reads instead of an ffprobe process
 * (~13 ms, as much as half a remux: docs/performance.md, "MP4 and MOV probed from their boxes"); what the boxes cannot
 * describe, and every other container, goes to ffprobe as before.
 */
import { runFfprobe, type Demuxer, type ProbeOptions } from "./ffmpeg";
import { probeMp4Boxes } from "./mp4-probe";
import type { ProbeResult } from "./probe";

export async function probeInput(path: string, opts: ProbeOptions & { demuxer: Demuxer }): Promise<ProbeResult> {
  if (opts.demuxer === "mov") {
    const read = await probeMp4Boxes(path);
    if (read) return read;
  }
  return runFfprobe(path, opts);
}
