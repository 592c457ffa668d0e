/**
 * MKV → MP4 without ffmpeg (lib/media/matroska-to-mp4.ts; issue 29 §4), held against
 * ffmpeg's own remux of the same file (`-c copy -movflags +faststart`): the same packets per
 * stream (sizes, key frames, in decode order), presentation times within a millisecond, the
 * same decoded pictures and sound frame by frame, and a fast-start layout. Files it does
 * not handle are refused before anything is written, and an MKV upload goes through it.
 */
import { execFile } from "node:child_process";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { matroskaToMp4 } from "@/lib/media/matroska-to-mp4";
import { processVideo } from "@/lib/media/video";
import { FIXTURE_FFMPEG, FIXTURE_FFPROBE, ffmpeg, listDir, removeDir, scratchDir, topLevelBoxes } from "../support/media";

const exec = promisify(execFile);
const OPTS = { keepMetadata: false, withAudio: true, consumeInput: false };
const SOURCE = (seconds: number) => [
  "-f",
  "lavfi",
  "-i",
  "testsrc2=size=320x240:rate=30",
  "-f",
  "lavfi",
  "-i",
  "sine=frequency=440:sample_rate=48000",
  "-t",
  String(seconds),
];
// B-frames (decode order differs from presentation order) and an AAC-LC track.
const H264_B = ["-c:v", "libx264", "-preset", "veryfast", "-bf", "3", "-g", "48", "-pix_fmt", "yuv420p"];
const AAC = ["-c:a", "aac", "-b:a", "96k"];

type Packet = { stream: number; pts: number; size: number; key: boolean };

async function packets(path: string): Promise<Packet[]> {
  const { stdout } = await exec(
    FIXTURE_FFPROBE,
    ["-v", "error", "-show_packets", "-show_entries", "packet=stream_index,pts_time,size,flags", "-of", "json", path],
    {
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const list = JSON.parse(stdout).packets as { stream_index: number; pts_time: string; size: string; flags: string }[];
  return list.map((p) => ({ stream: p.stream_index, pts: Number(p.pts_time), size: Number(p.size), key: p.flags.startsWith("K") }));
}

/** The decoded frames' hashes of one stream, in presentation order. */
async function frameHashes(path: string, stream: "v" | "a"): Promise<string[]> {
  const { stdout } = await exec(FIXTURE_FFMPEG, ["-v", "error", "-i", path, "-map", `0:${stream}`, "-f", "framemd5", "-"], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => line.split(",").pop()!.trim());
}

describe("MKV to MP4 without ffmpeg", () => {
  let dir = "";
  const at = (name: string) => join(dir, name);
  beforeAll(async () => {
    dir = await scratchDir();
    await Promise.all([
      ffmpeg([...SOURCE(4), ...H264_B, ...AAC, "-f", "matroska", at("av.mkv")]),
      ffmpeg([...SOURCE(2).slice(0, 4), "-t", "2", ...H264_B, "-f", "matroska", at("video.mkv")]),
      ffmpeg([...SOURCE(2), "-c:v", "libvpx-vp9", "-b:v", "200k", "-deadline", "realtime", ...AAC, "-f", "matroska", at("vp9.mkv")]),
      ffmpeg([...SOURCE(2), ...H264_B, "-c:a", "libopus", "-b:a", "64k", "-f", "matroska", at("opus.mkv")]),
    ]);
    await ffmpeg(["-i", at("av.mkv"), "-c", "copy", "-movflags", "+faststart", at("av.ffmpeg.mp4")]);
  }, 120_000);
  afterAll(() => removeDir(dir));

  it("writes the packets ffmpeg's remux writes, at the same times, and the same pictures and sound", async () => {
    expect(await matroskaToMp4(at("av.mkv"), at("av.mp4"), OPTS)).toBe(true);
    expect(await topLevelBoxes(at("av.mp4"))).toEqual(["ftyp", "moov", "mdat"]);
    const [ours, theirs] = await Promise.all([packets(at("av.mp4")), packets(at("av.ffmpeg.mp4"))]);
    for (const stream of [0, 1]) {
      const a = ours.filter((p) => p.stream === stream);
      const b = theirs.filter((p) => p.stream === stream);
      expect(a.length).toBeGreaterThan(50);
      expect(a.map((p) => [p.size, p.key])).toEqual(b.map((p) => [p.size, p.key]));
      // Matroska keeps milliseconds; both sides round from them.
      for (let i = 0; i < a.length; i++) expect(Math.abs(a[i].pts - b[i].pts)).toBeLessThanOrEqual(0.0011);
    }
    // B-frames: presentation order is not decode order, and it survived.
    const video = ours.filter((p) => p.stream === 0).map((p) => p.pts);
    expect(video.some((t, i) => i > 0 && t < video[i - 1])).toBe(true);
    for (const stream of ["v", "a"] as const) {
      expect(await frameHashes(at("av.mp4"), stream)).toEqual(await frameHashes(at("av.ffmpeg.mp4"), stream));
    }
  });

  it("a video without audio, and the input given up: removed once the MP4 is complete", async () => {
    expect(await matroskaToMp4(at("video.mkv"), at("video.mp4"), { ...OPTS, withAudio: false, consumeInput: true })).toBe(true);
    expect(await listDir(dir)).not.toContain("video.mkv");
    expect(await frameHashes(at("video.mp4"), "v")).toHaveLength(60);
  });

  it("leaves to ffmpeg, with nothing written, what it does not handle", async () => {
    const cases: [string, Partial<typeof OPTS>][] = [
      ["vp9.mkv", {}], // not H.264
      ["opus.mkv", {}], // not AAC
      ["av.mkv", { withAudio: false }], // the plan drops the audio
      ["av.mkv", { keepMetadata: true }], // tags would need translating
    ];
    for (const [name, opts] of cases) {
      const out = at(`refused-${name}.mp4`);
      expect(await matroskaToMp4(at(name), out, { ...OPTS, ...opts }), name).toBe(false);
      await expect(stat(out)).rejects.toThrow();
    }
    // A truncated file: the Segment claims more than is there.
    const whole = await readFile(at("av.mkv"));
    await writeFile(at("cut.mkv"), whole.subarray(0, whole.length - 5000));
    expect(await matroskaToMp4(at("cut.mkv"), at("cut.mp4"), OPTS)).toBe(false);
    expect(await listDir(dir)).not.toContain("cut.mp4");
  });

  it("an MKV upload becomes this MP4: no ffmpeg remux, the thumbnail taken from it", async () => {
    const result = await processVideo(at("av.mkv"), at("upload.mp4"), at("upload.jpg"), { keepMetadata: false, format: "mkv" });
    expect(result).toMatchObject({ mime: "video/mp4", transcoded: false });
    expect(await readFile(at("upload.mp4"))).toEqual(await readFile(at("av.mp4")));
    expect((await stat(at("upload.jpg"))).size).toBeGreaterThan(0);
  });
});
