/**
 * Which ffmpeg/ffprobe pair runs (lib/media/tools.ts, docs/media.md "Binaries"): the order
 * of the choice on real folders and files, and a real remux and thumbnail with the npm
 * builds forced by FFMPEG_SOURCE=npm while PATH offers a broken "system" pair.
 */
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { parseMediaConfig, resetMediaConfig } from "@/lib/media/config";
import { binaryPath } from "@/lib/media/ffmpeg";
import { describeMediaTools, formatMediaToolsReport, mediaTools, selectMediaTools } from "@/lib/media/tools";
import { processVideo } from "@/lib/media/video";
import { fixture, FIXTURE_FFMPEG, FIXTURE_FFPROBE, probeJson, removeDir, scratchDir } from "../support/media";

let dir: string;
/** Folders of fake tools: `both` holds ffmpeg and ffprobe, `onlyFfmpeg` just ffmpeg, `empty` nothing. */
let both: string;
let onlyFfmpeg: string;
let empty: string;
const npm = () => ({ ffmpeg: "/npm/ffmpeg", ffprobe: "/npm/ffprobe" });

/** A "binary" that fails like a broken build would, and says so on -version. */
async function fakeTool(folder: string, name: string): Promise<void> {
  await mkdir(folder, { recursive: true });
  const path = join(folder, name);
  await writeFile(path, `#!/bin/sh\n[ "$1" = "-version" ] && echo "${name} version 9.9-fake" && exit 0\necho "fake ${name}" >&2\nexit 1\n`);
  await chmod(path, 0o755);
}

beforeAll(async () => {
  dir = await scratchDir();
  both = join(dir, "both");
  onlyFfmpeg = join(dir, "only-ffmpeg");
  empty = join(dir, "empty");
  await fakeTool(both, "ffmpeg");
  await fakeTool(both, "ffprobe");
  await fakeTool(onlyFfmpeg, "ffmpeg");
  await mkdir(empty, { recursive: true });
  // Present but not executable: never chosen.
  await writeFile(join(empty, "ffmpeg"), "");
  await writeFile(join(empty, "ffprobe"), "");
});
afterAll(async () => {
  await removeDir(dir);
});
afterEach(() => {
  vi.unstubAllEnvs();
  resetMediaConfig();
});

const path = (...folders: string[]) => folders.join(delimiter);

describe("selectMediaTools", () => {
  it("prefers the first PATH folder that holds both tools, skipping half pairs, non-executables and relative folders", () => {
    const chosen = selectMediaTools({ source: "auto", searchPath: path("relative/bin", empty, onlyFfmpeg, both), npm });
    expect(chosen).toEqual({ origin: "system", ffmpeg: join(both, "ffmpeg"), ffprobe: join(both, "ffprobe") });
  });

  it("falls back to the npm builds when no folder holds both, or when FFMPEG_SOURCE=npm", () => {
    expect(selectMediaTools({ source: "auto", searchPath: path(empty, onlyFfmpeg), npm })).toEqual({ origin: "npm", ...npm() });
    expect(selectMediaTools({ source: "npm", searchPath: path(both), npm })).toEqual({ origin: "npm", ...npm() });
  });

  it("FFMPEG_SOURCE=system without a system pair is an error, not a silent fallback", () => {
    expect(() => selectMediaTools({ source: "system", searchPath: path(onlyFfmpeg), npm })).toThrow(/FFMPEG_SOURCE=system/);
    expect(selectMediaTools({ source: "system", searchPath: path(both), npm }).origin).toBe("system");
  });

  it("FFMPEG_PATH / FFPROBE_PATH win; one alone takes its sibling, never the other source's tool", () => {
    expect(selectMediaTools({ source: "auto", searchPath: path(both), npm, ffmpegPath: "/opt/ff/bin/ffmpeg" })).toEqual({
      origin: "env",
      ffmpeg: "/opt/ff/bin/ffmpeg",
      ffprobe: "/opt/ff/bin/ffprobe",
    });
    expect(selectMediaTools({ source: "npm", searchPath: "", npm, ffprobePath: "/x/ffprobe" })).toEqual({
      origin: "env",
      ffmpeg: "/x/ffmpeg",
      ffprobe: "/x/ffprobe",
    });
    expect(selectMediaTools({ source: "auto", searchPath: "", npm, ffmpegPath: "/a/ffmpeg", ffprobePath: "/b/probe" })).toMatchObject({
      ffprobe: "/b/probe",
    });
  });

  it("FFMPEG_SOURCE is parsed strictly", () => {
    expect(parseMediaConfig({ FFMPEG_SOURCE: " NPM " }).toolsSource).toBe("npm");
    expect(parseMediaConfig({}).toolsSource).toBe("auto");
    expect(() => parseMediaConfig({ FFMPEG_SOURCE: "debian" })).toThrow(/FFMPEG_SOURCE: must be auto, system or npm/);
  });
});

describe("the process's choice", () => {
  it("follows PATH and FFMPEG_SOURCE, and reports each tool's version", async () => {
    vi.stubEnv("PATH", path(both, process.env.PATH ?? ""));
    resetMediaConfig();
    expect(mediaTools().origin).toBe("system");
    expect(binaryPath("ffprobe")).toBe(join(both, "ffprobe"));
    const report = await describeMediaTools();
    expect(report).toEqual({
      origin: "system",
      ffmpeg: { path: join(both, "ffmpeg"), version: "9.9-fake" },
      ffprobe: { path: join(both, "ffprobe"), version: "9.9-fake" },
      // Reading text (docs/ocr.md; tests/ocr/ocr.test.ts covers it).
      tesseract: expect.objectContaining({ enabled: expect.any(Boolean) }),
    });
    expect(formatMediaToolsReport(report)).toBe(
      `media tools (system): ffmpeg 9.9-fake (${join(both, "ffmpeg")}), ffprobe 9.9-fake (${join(both, "ffprobe")})`,
    );

    vi.stubEnv("FFMPEG_SOURCE", "npm");
    resetMediaConfig();
    const npmReport = await describeMediaTools();
    expect(npmReport.origin).toBe("npm");
    expect(npmReport.ffmpeg).toEqual({ path: FIXTURE_FFMPEG, version: expect.stringMatching(/\S/) });
    expect(npmReport.ffprobe).toEqual({ path: FIXTURE_FFPROBE, version: expect.stringMatching(/\S/) });
  });

  it("a tool that cannot run is reported unavailable, with the reason", async () => {
    vi.stubEnv("FFMPEG_PATH", join(dir, "missing", "ffmpeg"));
    resetMediaConfig();
    const report = await describeMediaTools();
    expect(report.ffmpeg).toEqual({ path: join(dir, "missing", "ffmpeg"), version: null, error: "ENOENT" });
    expect(formatMediaToolsReport(report)).toContain("ffmpeg unavailable (ENOENT)");
  });

  it("with FFMPEG_SOURCE=npm a real remux and thumbnail run on the npm builds, though PATH offers a (broken) pair", async () => {
    vi.stubEnv("PATH", path(both, process.env.PATH ?? ""));
    resetMediaConfig();
    // The broken pair is what auto picks: it fails, so the success below is the npm builds' work.
    await expect(
      processVideo(await fixture("mkv"), join(dir, "auto.mp4"), join(dir, "auto.jpg"), { keepMetadata: false }),
    ).rejects.toThrow();

    vi.stubEnv("FFMPEG_SOURCE", "npm");
    resetMediaConfig();
    const result = await processVideo(await fixture("mkv"), join(dir, "npm.mp4"), join(dir, "npm.jpg"), { keepMetadata: false });
    expect(result).toMatchObject({ mime: "video/mp4", ext: "mp4", width: 320, height: 240 });
    const probe = await probeJson(join(dir, "npm.mp4"));
    expect(probe.streams.map((s) => s.codec_name)).toEqual(["h264", "aac"]);
    expect((await sharp(join(dir, "npm.jpg")).metadata()).format).toBe("jpeg");
  });
});
