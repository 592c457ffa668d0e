/** ffmpeg and ffprobe runs: no shell, inside the media limiter, with a time limit and abort (docs/media.md, "Binaries"). */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { setPriority } from "node:os";
import type { Readable } from "node:stream";
import { DomainError } from "@/lib/errors";
import { mediaConfig } from "./config";
import { withMediaSlot } from "./limiter";
import { parseProbeJson, type ProbeResult } from "./probe";
import { mediaTools, type MediaTool } from "./tools";

export type { ProbeResult, ProbeStream } from "./probe";

export type { MediaTool } from "./tools";
export type ToolFailure = "exit" | "timeout" | "aborted" | "spawn";

export type FfmpegProgress = {
  outTimeSeconds: number;
  /** True on the last report (`progress=end`). */
  done: boolean;
};

export type RunOptions = {
  /** Kill the process after this long; default MEDIA_TIMEOUT_SECONDS. Counted from spawn, not from queueing. */
  timeoutMs?: number;
  signal?: AbortSignal;
  onProgress?: (progress: FfmpegProgress) => void;
  /** Time between SIGTERM (lets ffmpeg close files) and SIGKILL. Default 2 s. */
  killGraceMs?: number;
};

/**
 * A failed ffmpeg/ffprobe run. Type `internal` so an unmapped failure is a clean 500; the
 * media functions map it to the right domain error (a corrupt upload is invalid_request).
 * The message is safe to show a client (no paths); `stderrTail` is for logs.
 */
export class MediaToolError extends DomainError {
  constructor(
    readonly tool: MediaTool,
    readonly reason: ToolFailure,
    message: string,
    readonly stderrTail: string,
    readonly exitCode: number | null = null,
    readonly exitSignal: NodeJS.Signals | null = null,
  ) {
    super("internal", message);
    this.name = "MediaToolError";
  }
}

export const isMediaToolError = (e: unknown): e is MediaToolError => e instanceof MediaToolError;

export function binaryPath(tool: MediaTool): string {
  return mediaTools()[tool];
}

/** Inputs and outputs are passed as `file:` URLs so a name can never be read as a protocol or option. */
export const fileArg = (path: string): string => `file:${path}`;

const STDERR_TAIL_CHARS = 4000;
const STDOUT_MAX_CHARS = 8 * 1024 * 1024;
const DEFAULT_KILL_GRACE_MS = 2000;
/** A lower priority keeps the web server responsive while ffmpeg runs. */
const CHILD_NICENESS = 10;

type ToolOutput = { stdout: string; stderrTail: string };

function runTool(tool: MediaTool, args: string[], opts: RunOptions, keepStdout: boolean): Promise<ToolOutput> {
  return withMediaSlot(() => spawnTool(tool, args, opts, keepStdout), { signal: opts.signal });
}

function spawnTool(tool: MediaTool, args: string[], opts: RunOptions, keepStdout: boolean): Promise<ToolOutput> {
  const timeoutMs = opts.timeoutMs ?? mediaConfig().timeoutMs;
  const graceMs = opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const { signal } = opts;

  return new Promise<ToolOutput>((resolve, reject) => {
    if (signal?.aborted) {
      reject(new MediaToolError(tool, "aborted", `${tool} was aborted before it started.`, ""));
      return;
    }
    const child = startChild(tool, args);
    const limits = enforceLimits(child, timeoutMs, graceMs, signal);
    const output = collectOutput(child, keepStdout, opts.onProgress);

    let settled = false;
    const finish = (error: MediaToolError | null) => {
      if (settled) return;
      settled = true;
      limits.release();
      if (error) reject(error);
      else resolve({ stdout: output.stdout, stderrTail: output.stderrTail });
    };
    child.on("error", (err) => {
      const why = (err as NodeJS.ErrnoException).code ?? err.message;
      finish(new MediaToolError(tool, "spawn", `${tool} could not be started (${why}).`, output.stderrTail));
    });
    child.on("close", (code, exitSignal) => {
      finish(closeFailure(tool, { stopped: limits.stopped(), timeoutMs, output, code, exitSignal }));
    });
  });
}

type ToolChild = ChildProcessByStdio<null, Readable, Readable>;

function startChild(tool: MediaTool, args: string[]): ToolChild {
  const child = spawn(binaryPath(tool), args, { stdio: ["ignore", "pipe", "pipe"], windowsHide: true });
  if (child.pid !== undefined) {
    try {
      setPriority(child.pid, CHILD_NICENESS);
    } catch {
      // Not permitted in some containers; running at normal priority is fine.
    }
  }
  return child;
}

type StopReason = "timeout" | "aborted";

type Limits = {
  stopped(): StopReason | undefined;
  release(): void;
};

/** SIGTERM first: it lets ffmpeg close files. */
function enforceLimits(child: ToolChild, timeoutMs: number, graceMs: number, signal: AbortSignal | undefined): Limits {
  let stopping: StopReason | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  let released = false;

  const stop = (why: StopReason) => {
    if (stopping || released) return;
    stopping = why;
    child.kill("SIGTERM");
    killTimer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  };
  const timer = setTimeout(() => stop("timeout"), Math.max(1, timeoutMs));
  const onAbort = () => stop("aborted");
  signal?.addEventListener("abort", onAbort, { once: true });

  return {
    stopped: () => stopping,
    release: () => {
      released = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      signal?.removeEventListener("abort", onAbort);
    },
  };
}

type CollectedOutput = {
  /** All of stdout when kept (ffprobe's JSON), up to STDOUT_MAX_CHARS. */
  stdout: string;
  /** True when stdout went past STDOUT_MAX_CHARS (the run then fails). */
  stdoutOverflow: boolean;
  stderrTail: string;
};

function collectOutput(child: ToolChild, keepStdout: boolean, onProgress: RunOptions["onProgress"]): CollectedOutput {
  const output: CollectedOutput = { stdout: "", stdoutOverflow: false, stderrTail: "" };
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    output.stderrTail = (output.stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
  });
  const readProgress = keepStdout ? undefined : progressReader(onProgress);
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    if (readProgress) return readProgress(chunk);
    if (output.stdout.length + chunk.length > STDOUT_MAX_CHARS) output.stdoutOverflow = true;
    else output.stdout += chunk;
  });
  return output;
}

/** `-progress pipe:1` blocks, each ended by progress=continue|end. Chunks may split a line anywhere. */
function progressReader(onProgress: RunOptions["onProgress"]): (chunk: string) => void {
  let partialLine = "";
  let block: Record<string, string> = {};
  return (chunk) => {
    const lines = (partialLine + chunk).split("\n");
    partialLine = lines.pop() ?? "";
    for (const line of lines) {
      const eq = line.indexOf("=");
      if (eq < 0) continue;
      const key = line.slice(0, eq).trim();
      const value = line.slice(eq + 1).trim();
      if (key !== "progress") {
        block[key] = value;
        continue;
      }
      onProgress?.({ outTimeSeconds: parseOutTime(block.out_time), done: value === "end" });
      block = {};
    }
  };
}

type ClosedRun = {
  stopped: StopReason | undefined;
  timeoutMs: number;
  output: CollectedOutput;
  code: number | null;
  exitSignal: NodeJS.Signals | null;
};

/** The error a finished run ends with, or null when it succeeded. Our own stop explains the exit before the code does. */
function closeFailure(tool: MediaTool, run: ClosedRun): MediaToolError | null {
  const { stopped, output, code, exitSignal } = run;
  const fail = (reason: ToolFailure, message: string) => new MediaToolError(tool, reason, message, output.stderrTail, code, exitSignal);
  if (stopped === "timeout") return fail("timeout", `${tool} was stopped after the ${formatSeconds(run.timeoutMs)} time limit.`);
  if (stopped === "aborted") return fail("aborted", `${tool} was aborted.`);
  if (code !== 0) return fail("exit", `${tool} ${code === null ? `was killed by ${exitSignal}` : `exited with code ${code}`}.`);
  if (output.stdoutOverflow) return fail("exit", `${tool} wrote more output than expected.`);
  return null;
}

function parseOutTime(v: string | undefined): number {
  // HH:MM:SS.micro; unambiguous, unlike out_time_ms which is microseconds in ffmpeg 4.x.
  const m = /^(-?\d+):(\d+):(\d+(?:\.\d+)?)$/.exec(v ?? "");
  if (!m) return 0;
  return Math.max(0, Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]));
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** Wrap paths in `args` with fileArg. Resolves with the stderr tail (error-level warnings, usually empty). */
export async function runFfmpeg(args: string[], opts: RunOptions = {}): Promise<{ stderrTail: string }> {
  const fixed = ["-nostdin", "-hide_banner", "-loglevel", "error", "-nostats", "-progress", "pipe:1", "-y"];
  const { stderrTail } = await runTool("ffmpeg", [...fixed, ...args], opts, false);
  return { stderrTail };
}

/**
 * Demuxers we let read uploads: naming one with `-f` stops ffmpeg probing the input as anything
 * else, so an HLS playlist or concat script (which can make ffmpeg open other files or URLs) is refused.
 */
export type Demuxer = "mov" | "matroska" | "gif";

export function demuxerFor(format: "mp4" | "mov" | "mkv" | "webm" | "gif"): Demuxer {
  // WebM is Matroska: ffmpeg's matroska demuxer reads both.
  return format === "mkv" || format === "webm" ? "matroska" : format === "gif" ? "gif" : "mov";
}

export function inputArgs(path: string, demuxer?: Demuxer): string[] {
  return [...(demuxer ? ["-f", demuxer] : []), "-i", fileArg(path)];
}

export type ProbeOptions = RunOptions & {
  /** Force the container (recommended for uploads); unset lets ffprobe guess. */
  demuxer?: Demuxer;
};

export async function runFfprobe(path: string, opts: ProbeOptions = {}): Promise<ProbeResult> {
  const forced = opts.demuxer ? ["-f", opts.demuxer] : [];
  const args = ["-hide_banner", "-loglevel", "error", "-print_format", "json", "-show_streams", "-show_format", ...forced, fileArg(path)];
  const { stdout, stderrTail } = await runTool("ffprobe", args, opts, true);
  try {
    return parseProbeJson(JSON.parse(stdout));
  } catch {
    throw new MediaToolError("ffprobe", "exit", "ffprobe returned output that could not be read.", stderrTail, 0);
  }
}
