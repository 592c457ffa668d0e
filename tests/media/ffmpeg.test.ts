import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { resetMediaConfig } from "@/lib/media/config";
import { binaryPath, isMediaToolError, type MediaToolError, runFfmpeg, runFfprobe, type FfmpegProgress } from "@/lib/media/ffmpeg";
import { parseProbeJson } from "@/lib/media/probe";
import { fixture, removeDir, scratchDir } from "../support/media";

let dir: string;
beforeAll(async () => {
  dir = await scratchDir();
});
afterAll(async () => {
  await removeDir(dir);
});
afterEach(() => {
  vi.unstubAllEnvs();
  resetMediaConfig();
});

/** Endless real-time input: ffmpeg runs until stopped. */
const ENDLESS = ["-re", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-f", "null", "-"];

async function failure(promise: Promise<unknown>): Promise<MediaToolError> {
  const e = await promise.then(
    () => null,
    (x: unknown) => x,
  );
  expect(isMediaToolError(e)).toBe(true);
  return e as MediaToolError;
}

describe("binaries", () => {
  // The whole order (system pair on PATH first) is tests/media/tools.test.ts's.
  it("FFMPEG_SOURCE=npm gives the npm-shipped builds; FFMPEG_PATH overrides", () => {
    vi.stubEnv("FFMPEG_SOURCE", "npm");
    resetMediaConfig();
    expect(binaryPath("ffmpeg")).toMatch(/@ffmpeg-installer/);
    expect(binaryPath("ffprobe")).toMatch(/@ffprobe-installer/);
    vi.stubEnv("FFMPEG_PATH", "/opt/ffmpeg/bin/ffmpeg");
    resetMediaConfig();
    expect(binaryPath("ffmpeg")).toBe("/opt/ffmpeg/bin/ffmpeg");
  });
});

describe("runFfmpeg", () => {
  it("runs a job and reports progress", async () => {
    const reports: FfmpegProgress[] = [];
    await runFfmpeg(["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-t", "1", "-f", "null", "-"], {
      onProgress: (p) => reports.push(p),
    });
    expect(reports.at(-1)).toMatchObject({ done: true });
    expect(reports.at(-1)!.outTimeSeconds).toBeCloseTo(1, 0);
  });

  it("a failure carries the exit code and the stderr tail; the message stays free of paths", async () => {
    const missing = join(dir, "does-not-exist.mp4");
    const e = await failure(runFfmpeg(["-i", `file:${missing}`, "-f", "null", "-"]));
    expect(e).toMatchObject({ tool: "ffmpeg", reason: "exit", type: "internal" });
    expect(e.exitCode).not.toBe(0);
    expect(e.stderrTail).toMatch(/No such file or directory/);
    expect(e.message).toBe("ffmpeg exited with code 1.");
  });

  it("kills the process at the time limit and says so", async () => {
    const started = Date.now();
    const e = await failure(runFfmpeg(ENDLESS, { timeoutMs: 400 }));
    expect(e.reason).toBe("timeout");
    expect(e.message).toBe("ffmpeg was stopped after the 0.4 s time limit.");
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it("escalates to SIGKILL when SIGTERM is ignored", async () => {
    const stubborn = join(dir, "stubborn-ffmpeg.sh");
    await writeFile(stubborn, "#!/bin/sh\ntrap '' TERM\nexec sleep 30\n");
    await chmod(stubborn, 0o755);
    vi.stubEnv("FFMPEG_PATH", stubborn);
    resetMediaConfig();
    const started = Date.now();
    const e = await failure(runFfmpeg([], { timeoutMs: 200, killGraceMs: 300 }));
    expect(e.reason).toBe("timeout");
    expect(e.exitSignal).toBe("SIGKILL");
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("stops the process when the caller aborts", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const e = await failure(runFfmpeg(ENDLESS, { signal: controller.signal }));
    expect(e.reason).toBe("aborted");
  });

  it("a missing binary is a spawn failure", async () => {
    vi.stubEnv("FFMPEG_PATH", join(dir, "no-such-ffmpeg"));
    resetMediaConfig();
    const e = await failure(runFfmpeg(["-version"]));
    expect(e.reason).toBe("spawn");
    expect(e.message).toMatch(/ENOENT/);
  });
});

describe("runFfprobe", () => {
  it("returns streams and format, rotation normalised to clockwise degrees", async () => {
    const probe = await runFfprobe(await fixture("mp4Rotated"));
    expect(probe.formatName).toContain("mp4");
    expect(probe.duration).toBeCloseTo(2, 1);
    const [video, audio] = probe.streams;
    expect(video).toMatchObject({ codecType: "video", codecName: "h264", width: 320, height: 240, rotation: 90, attachedPic: false });
    expect(audio).toMatchObject({ codecType: "audio", codecName: "aac" });
  });

  it("with the container forced, fails on a file that is not that container", async () => {
    // Unforced, ffprobe guesses: this text file "is" an image2 (.png name) and is read.
    expect((await runFfprobe(await fixture("textPng"))).formatName).toBe("image2");
    const e = await failure(runFfprobe(await fixture("textPng"), { demuxer: "mov" }));
    expect(e).toMatchObject({ tool: "ffprobe", reason: "exit" });
    expect(e.stderrTail).toMatch(/moov atom not found|Invalid data/);
    await failure(runFfprobe(await fixture("mp4"), { demuxer: "matroska" }));
  });

  it("parses both rotation conventions (old rotate tag, display matrix side data)", () => {
    const stream = (extra: object) => ({
      streams: [{ index: 0, codec_type: "video", codec_name: "h264", width: 1920, height: 1080, ...extra }],
    });
    expect(parseProbeJson(stream({ tags: { rotate: "90" } })).streams[0]!.rotation).toBe(90);
    expect(parseProbeJson(stream({ side_data_list: [{ side_data_type: "Display Matrix", rotation: -90 }] })).streams[0]!.rotation).toBe(90);
    expect(parseProbeJson(stream({ side_data_list: [{ rotation: 90 }] })).streams[0]!.rotation).toBe(270);
    expect(parseProbeJson(stream({ side_data_list: [{ rotation: 180 }] })).streams[0]!.rotation).toBe(180);
    expect(parseProbeJson(stream({})).streams[0]!.rotation).toBe(0);
  });
});
