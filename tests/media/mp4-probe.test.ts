/**
 * The MP4/MOV box reader (lib/media/mp4-probe.ts) against ffprobe on real files written by
 * ffmpeg: the same codecs, stream numbers, sizes, rotation and durations, and the same copy
 * decisions; what it cannot describe (fragmented files, extra tracks, broken boxes) goes to
 * ffprobe. Then the jobs that used to start with ffprobe run with no ffprobe at all.
 */
import { execFile } from "node:child_process";
import { readFile, stat, writeFile } from "node:fs/promises";
import { promisify } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resetMediaConfig } from "@/lib/media/config";
import { convertFile } from "@/lib/media/convert";
import { runFfprobe } from "@/lib/media/ffmpeg";
import { probeMp4Boxes } from "@/lib/media/mp4-probe";
import type { ProbeResult } from "@/lib/media/probe";
import { probeInput } from "@/lib/media/probe-input";
import { mediaTools } from "@/lib/media/tools";
import { sniffFile } from "@/lib/media/sniff";
import { CONVERT_COPY_VIDEO, planMp4, processVideo, UPLOAD_COPY_VIDEO } from "@/lib/media/video";
import { ffmpeg, fixture, FIXTURE_FFMPEG, useScratchDir } from "../support/media";

const at = useScratchDir();
const run = promisify(execFile);

afterEach(() => {
  vi.unstubAllEnvs();
  resetMediaConfig();
});

const LAVFI_VIDEO = (size: string, rate: number) => ["-f", "lavfi", "-i", `testsrc=size=${size}:rate=${rate}`];
const LAVFI_AUDIO = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"];

async function hasEncoder(name: string): Promise<boolean> {
  const { stdout } = await run(FIXTURE_FFMPEG, ["-hide_banner", "-encoders"]);
  return new RegExp(`\\s${name}\\s`).test(stdout);
}

/** A file generated once per test run into the scratch directory. */
const made = new Map<string, Promise<string>>();
function media(name: string, args: string[]): Promise<string> {
  let p = made.get(name);
  if (!p) {
    p = ffmpeg([...args, at(name)]).then(() => at(name));
    made.set(name, p);
  }
  return p;
}

/**
 * What a decision is made on, with stream durations to the millisecond. The file's own
 * duration is compared apart (sameFileDuration): ffprobe versions disagree on it.
 */
function essentials(probe: ProbeResult) {
  const ms = (s: number | undefined) => (s === undefined ? undefined : Math.round(s * 1000));
  return {
    formatName: probe.formatName,
    size: probe.size,
    streams: probe.streams.map((s) => ({
      index: s.index,
      codecType: s.codecType,
      codecName: s.codecName,
      codecTag: s.codecTag,
      pixFmt: s.pixFmt,
      width: s.width,
      height: s.height,
      rotation: s.rotation,
      attachedPic: s.attachedPic,
      duration: ms(s.duration),
    })),
  };
}

function decisions(probe: ProbeResult) {
  const upload = planMp4(probe, UPLOAD_COPY_VIDEO, "mov");
  const convert = planMp4(probe, CONVERT_COPY_VIDEO, "mov");
  return {
    video: upload.video.index,
    audio: upload.audio?.index,
    upload: [upload.copyVideo, upload.copyAudio],
    convert: [convert.copyVideo, convert.copyAudio],
  };
}

async function expectSameAsFfprobe(path: string): Promise<ProbeResult> {
  const boxes = await probeMp4Boxes(path);
  expect(boxes).not.toBeNull();
  const probed = await runFfprobe(path, { demuxer: "mov" });
  expect(essentials(boxes!)).toEqual(essentials(probed));
  expect(decisions(boxes!)).toEqual(decisions(probed));
  sameFileDuration(boxes!, probed);
  return boxes!;
}

/**
 * The file's duration: the box reader takes the longest track after its edit list, as
 * ffprobe 6 does; ffprobe 5.1 (Debian 12's) reports the movie header's, which counts the
 * AAC encoder delay (2.024 s for a 2 s clip). Within 50 ms of whichever ffprobe runs here.
 */
function sameFileDuration(boxes: ProbeResult, probed: ProbeResult): void {
  expect(boxes.duration).toBeDefined();
  expect(Math.abs((boxes.duration ?? 0) - (probed.duration ?? 0))).toBeLessThan(0.05);
}

describe("probeMp4Boxes: the same answer as ffprobe", () => {
  it("MP4, H.264 + AAC, moov at the end (the upload fixture)", async () => {
    const probe = await expectSameAsFfprobe(await fixture("mp4"));
    expect(probe.streams.map((s) => s.codecName)).toEqual(["h264", "aac"]);
    expect(probe.duration).toBe(2); // mvhd says 2.024 (the AAC priming samples); the edit list says 2
  });

  it("MOV, H.264 + AAC (QuickTime sound sample entry, esds inside wave)", async () => {
    const probe = await expectSameAsFfprobe(await fixture("mov"));
    expect(probe.streams.map((s) => s.codecName)).toEqual(["h264", "aac"]);
  });

  it("H.264 without audio", async () => {
    const probe = await expectSameAsFfprobe(await fixture("mp4Silent"));
    expect(probe.streams).toHaveLength(1);
  });

  it("a quarter-turn display matrix", async () => {
    const probe = await expectSameAsFfprobe(await fixture("mp4Rotated"));
    expect(probe.streams[0].rotation).toBe(90);
  });

  it("720p with B-frames (the first frame's composition offset in the edit list), as MP4 and as MOV", async () => {
    const mp4 = await media("bframes.mp4", [
      ...LAVFI_VIDEO("1280x720", 30),
      ...LAVFI_AUDIO,
      "-t",
      "3",
      "-c:v",
      "libx264",
      "-preset",
      "veryfast",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-shortest",
    ]);
    const mov = await media("bframes.mov", ["-i", mp4, "-c", "copy", "-f", "mov"]);
    for (const path of [mp4, mov]) {
      const probe = await expectSameAsFfprobe(path);
      expect(probe.streams[0]).toMatchObject({ width: 1280, height: 720 });
    }
  });

  it("MP3 audio in MP4", async () => {
    const path = await media("mp3.mp4", [
      ...LAVFI_VIDEO("320x240", 25),
      ...LAVFI_AUDIO,
      "-t",
      "2",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "libmp3lame",
      "-shortest",
    ]);
    expect((await expectSameAsFfprobe(path)).streams[1].codecName).toBe("mp3");
  });

  it("H.264 4:4:4 and 10-bit: pixel formats read from the SPS, so uploads still transcode them", async () => {
    for (const pixFmt of ["yuv444p", "yuv420p10le"]) {
      const path = await media(`${pixFmt}.mp4`, [
        ...LAVFI_VIDEO("320x240", 25),
        "-t",
        "1",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-pix_fmt",
        pixFmt,
      ]);
      const probe = await expectSameAsFfprobe(path);
      expect(probe.streams[0].pixFmt).toBe(pixFmt);
      expect(decisions(probe).upload[0]).toBe(false);
    }
  });

  it("full-range H.264 reads as yuv420p (ffprobe: yuvj420p), copied alike", async () => {
    const path = await media("full.mp4", [
      ...LAVFI_VIDEO("320x240", 25),
      "-t",
      "1",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuvj420p",
    ]);
    const boxes = (await probeMp4Boxes(path))!;
    const probed = await runFfprobe(path, { demuxer: "mov" });
    expect([boxes.streams[0].pixFmt, probed.streams[0].pixFmt]).toEqual(["yuv420p", "yuvj420p"]);
    expect(decisions(boxes)).toEqual(decisions(probed));
  });

  it("HEVC (hvc1) + AAC, when this ffmpeg build has libx265", async () => {
    if (!(await hasEncoder("libx265"))) return; // the shipped build has it; a system FFMPEG may not
    const path = await media("hevc.mp4", [
      ...LAVFI_VIDEO("320x240", 25),
      ...LAVFI_AUDIO,
      "-t",
      "2",
      "-c:v",
      "libx265",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
      "-x265-params",
      "log-level=error",
      "-tag:v",
      "hvc1",
      "-c:a",
      "aac",
      "-shortest",
    ]);
    const probe = await expectSameAsFfprobe(path);
    expect(probe.streams.map((s) => [s.codecName, s.codecTag, s.pixFmt])).toEqual([
      ["hevc", "hvc1", "yuv420p"],
      ["aac", "mp4a", undefined],
    ]);
  });
});

describe("what the boxes cannot say goes to ffprobe", () => {
  it("fragmented MP4 (durations are in the fragments): null, and probeInput answers with ffprobe's probe", async () => {
    const path = await media("frag.mp4", [
      ...LAVFI_VIDEO("320x240", 25),
      ...LAVFI_AUDIO,
      "-t",
      "2",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-shortest",
      "-movflags",
      "frag_keyframe+empty_moov",
    ]);
    expect(await probeMp4Boxes(path)).toBeNull();
    const probed = await runFfprobe(path, { demuxer: "mov" });
    expect(probed.duration).toBeGreaterThan(1.9);
    expect(essentials(await probeInput(path, { demuxer: "mov" }))).toEqual(essentials(probed));
  });

  it("a timecode track (ffmpeg numbers it as a stream too): null", async () => {
    const path = await media("tmcd.mov", ["-i", await fixture("mov"), "-c", "copy", "-timecode", "01:00:00:00", "-f", "mov"]);
    expect((await runFfprobe(path, { demuxer: "mov" })).streams.map((s) => s.codecType)).toEqual(["video", "audio", "data"]);
    expect(await probeMp4Boxes(path)).toBeNull();
  });

  it("no moov (a truncated upload), garbage, a missing file: null", async () => {
    expect(await probeMp4Boxes(await fixture("truncatedMp4"))).toBeNull();
    const garbage = at("garbage.mp4");
    await writeFile(garbage, Buffer.concat([Buffer.from("\0\0\0\x18ftypisom\0\0\0\0isommp41"), Buffer.alloc(4000, 0xff)]));
    expect(await probeMp4Boxes(garbage)).toBeNull();
    expect(await probeMp4Boxes(at("missing.mp4"))).toBeNull();
  });

  it("a moov whose sample description is cut short: null, not a throw", async () => {
    const bytes = await readFile(await fixture("mp4Silent"));
    const avcC = bytes.indexOf(Buffer.from("avcC"));
    expect(avcC).toBeGreaterThan(0);
    bytes.writeUInt32BE(0xffff, avcC - 4); // the avcC claims more bytes than its parent holds
    const broken = at("broken-avcc.mp4");
    await writeFile(broken, bytes);
    expect(await probeMp4Boxes(broken)).toBeNull();
  });
});

describe("video jobs on MP4/MOV need no ffprobe", () => {
  const noFfprobe = () => {
    // Both set: FFPROBE_PATH alone would take ffmpeg from the same (missing) folder (docs/media.md, "Binaries").
    vi.stubEnv("FFMPEG_PATH", mediaTools().ffmpeg);
    vi.stubEnv("FFPROBE_PATH", "/nonexistent/ffprobe");
    resetMediaConfig();
  };

  it("convert MP4 → MP4 and MOV → MP4, MP4 → MP3: the same output as with ffprobe", async () => {
    const outputs: Record<string, number> = {};
    for (const [name, target] of [
      ["mp4", "mp4"],
      ["mov", "mp4"],
      ["mp4", "mp3"],
    ] as const) {
      const input = await fixture(name);
      const source = (await sniffFile(input))!;
      const withProbe = await convertFile(input, at(`${name}-probe.${target}`), { source, target });
      outputs[`${name}>${target}`] = withProbe.size;
      noFfprobe();
      const without = await convertFile(input, at(`${name}-boxes.${target}`), { source, target });
      vi.unstubAllEnvs();
      resetMediaConfig();
      expect(without).toEqual(withProbe);
      expect((await readFile(at(`${name}-boxes.${target}`))).equals(await readFile(at(`${name}-probe.${target}`)))).toBe(true);
    }
    expect(Object.keys(outputs)).toHaveLength(3);
  });

  it("an MP4 upload (fast start, output described from its boxes, thumbnail) and a MOV upload (remux)", async () => {
    noFfprobe();
    const mp4 = await processVideo(await fixture("mp4"), at("up.mp4"), at("up.jpg"), { keepMetadata: false });
    expect(mp4).toMatchObject({ width: 320, height: 240, duration: 2, transcoded: false });
    const rotated = await processVideo(await fixture("mp4Rotated"), at("rot.mp4"), at("rot.jpg"), { keepMetadata: false });
    expect(rotated).toMatchObject({ width: 240, height: 320, duration: 2 });
    const mov = await processVideo(await fixture("mov"), at("up-mov.mp4"), at("up-mov.jpg"), { keepMetadata: false });
    expect(mov).toMatchObject({ width: 320, height: 240, transcoded: false });
    expect(mov.size).toBe((await stat(at("up-mov.mp4"))).size);
  });
});
