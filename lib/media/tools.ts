/**
 * Which ffmpeg and ffprobe run (docs/media.md, "Binaries"). They parse untrusted files, so the
 * system's maintained build wins over the npm packages' static ones (ffmpeg from 2018). Both come
 * from the same place: a system ffprobe never judges what an npm ffmpeg will then read.
 */
import { execFile } from "node:child_process";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { optionalPackage } from "@/lib/config/packages";
import { mediaConfig, type MediaConfig, type MediaToolsSource } from "./config";
import { executableFile, ocrConfig, ocrOffReason, tesseractVersion, type TesseractVersion } from "./tesseract";

export type MediaTool = "ffmpeg" | "ffprobe";
export type ToolOrigin = "env" | "system" | "npm";

export interface MediaTools {
  origin: ToolOrigin;
  ffmpeg: string;
  ffprobe: string;
}

export interface ToolSelectionInput {
  ffmpegPath?: string;
  ffprobePath?: string;
  source: MediaToolsSource;
  searchPath: string;
  /** The npm builds' paths, asked only when they are the answer. */
  npm: () => { ffmpeg: string; ffprobe: string };
  /** Whether `path` is an executable file; injectable for tests of the order. */
  isExecutable?: (path: string) => boolean;
}

/** The first folder of `searchPath` holding both tools; relative entries are ignored (they depend on the working directory). */
function findSystemPair(searchPath: string, isExecutable: (path: string) => boolean): MediaTools | null {
  for (const folder of searchPath.split(delimiter)) {
    if (!folder || !isAbsolute(folder)) continue;
    const ffmpeg = join(folder, "ffmpeg");
    const ffprobe = join(folder, "ffprobe");
    if (isExecutable(ffmpeg) && isExecutable(ffprobe)) return { origin: "system", ffmpeg, ffprobe };
  }
  return null;
}

export function selectMediaTools(input: ToolSelectionInput): MediaTools {
  const { ffmpegPath, ffprobePath } = input;
  if (ffmpegPath || ffprobePath) {
    return {
      origin: "env",
      ffmpeg: ffmpegPath ?? join(dirname(ffprobePath!), "ffmpeg"),
      ffprobe: ffprobePath ?? join(dirname(ffmpegPath!), "ffprobe"),
    };
  }
  if (input.source !== "npm") {
    const found = findSystemPair(input.searchPath, input.isExecutable ?? executableFile);
    if (found) return found;
    if (input.source === "system") {
      throw new Error(`FFMPEG_SOURCE=system, but no folder of PATH holds both ffmpeg and ffprobe (PATH=${input.searchPath})`);
    }
  }
  return { origin: "npm", ...input.npm() };
}

function installerPath(tool: MediaTool, mod: unknown): string {
  if (typeof mod === "object" && mod !== null && "path" in mod && typeof mod.path === "string") return mod.path;
  throw new Error(`the ${tool} installer package did not provide a binary path`);
}

// Loaded when they are the answer: a process that never runs ffmpeg (most admin commands)
// does not load them. From node_modules, where they find their binaries (next.config.mjs).
const npmBuilds = () => ({
  ffmpeg: installerPath("ffmpeg", optionalPackage("@ffmpeg-installer/ffmpeg")),
  ffprobe: installerPath("ffprobe", optionalPackage("@ffprobe-installer/ffprobe")),
});

let selected: { config: MediaConfig; tools: MediaTools } | undefined;
/** The pair this process uses; chosen again after resetMediaConfig (a new config object). */
export function mediaTools(): MediaTools {
  const config = mediaConfig();
  if (selected?.config !== config) {
    selected = {
      config,
      tools: selectMediaTools({
        ffmpegPath: config.ffmpegPath,
        ffprobePath: config.ffprobePath,
        source: config.toolsSource,
        searchPath: config.searchPath,
        npm: npmBuilds,
      }),
    };
  }
  return selected.tools;
}

export interface ToolVersion {
  path: string;
  /** The version word of `-version`'s first line (`5.1.9-0+deb12u1`, `N-47683-g0e8eb07980-static`), or null when it did not run. */
  version: string | null;
  error?: string;
}

/** Runs `<tool> -version` (outside the media limiter: it reads no upload and takes milliseconds). */
export function toolVersion(path: string): Promise<ToolVersion> {
  return new Promise((done) => {
    execFile(path, ["-version"], { timeout: 10_000, maxBuffer: 1 << 20 }, (error, stdout) => {
      const match = /^\S+ version (\S+)/.exec(String(stdout));
      if (match) done({ path, version: match[1] });
      else
        done({
          path,
          version: null,
          error: error ? ((error as NodeJS.ErrnoException).code?.toString() ?? error.message) : "unexpected -version output",
        });
    });
  });
}

export interface MediaToolsReport {
  origin: ToolOrigin;
  ffmpeg: ToolVersion;
  ffprobe: ToolVersion;
  /** Reading text in images (docs/ocr.md): Tesseract's path and version, and whether it is on. */
  tesseract: TesseractVersion & { enabled: boolean; off: string | null };
}

/** The selected pair with their versions, and Tesseract's: logged at start-up, shown by `admin media tools`. */
export async function describeMediaTools(): Promise<MediaToolsReport> {
  const tools = mediaTools();
  const [ffmpeg, ffprobe, tesseract] = await Promise.all([toolVersion(tools.ffmpeg), toolVersion(tools.ffprobe), tesseractVersion()]);
  const config = ocrConfig();
  // A binary that is there but does not run reads nothing either.
  const off = ocrOffReason(config) ?? (tesseract.version ? null : `tesseract does not run (${tesseract.error})`);
  return { origin: tools.origin, ffmpeg, ffprobe, tesseract: { ...tesseract, enabled: off === null, off } };
}

export function formatMediaToolsReport(report: MediaToolsReport): string {
  const one = (name: MediaTool, v: ToolVersion) => `${name} ${v.version ?? `unavailable (${v.error})`} (${v.path})`;
  return `media tools (${report.origin}): ${one("ffmpeg", report.ffmpeg)}, ${one("ffprobe", report.ffprobe)}`;
}

/** The start-up log's line about reading text: Tesseract's version, or why it is off (logged once). */
export function formatTextReadingReport(report: MediaToolsReport): string {
  const t = report.tesseract;
  return t.off ? `text reading is off: ${t.off}` : `text reading on: tesseract ${t.version} (${t.path})`;
}
