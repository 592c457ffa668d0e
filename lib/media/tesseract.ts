/**
 * Tesseract runs (docs/ocr.md): the image on stdin and the words on stdout, so no temporary file
 * exists on any path. SIGKILL at the time limit: Tesseract writes nothing worth closing.
 */
import { execFile, spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { setPriority } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";
import { type Environment, setting } from "@/lib/config/env";
import { settingsSource, storedVersion } from "@/lib/config/stored-settings";

export interface OcrConfig {
  /** OCR=off: the operator turned reading text off. */
  enabled: boolean;
  path: string | null;
  language: string;
  concurrency: number;
  timeoutMs: number;
  maxBytes: number;
  searchPath: string;
}

const DEFAULT_TIMEOUT_SECONDS = 60;
const DEFAULT_MAX_BYTES = 50 * 1024 * 1024;
const CHILD_NICENESS = 10;
const STDOUT_MAX_CHARS = 8 * 1024 * 1024;

/** Whether `path` is an executable regular file (the media tools' lookup uses it too: tools.ts). */
export function executableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function findOnPath(searchPath: string): string | null {
  for (const folder of searchPath.split(delimiter)) {
    if (!folder || !isAbsolute(folder)) continue;
    const candidate = join(folder, "tesseract");
    if (executableFile(candidate)) return candidate;
  }
  return null;
}

export function parseOcrConfig(source: Environment = settingsSource()): OcrConfig {
  const explicit = setting("TESSERACT_PATH", source);
  return {
    enabled: setting("OCR", source) !== "off",
    // An explicit path that is not there means "no Tesseract" (the service runs on, and says so).
    path: explicit ? (executableFile(explicit) ? explicit : null) : findOnPath(source.PATH ?? ""),
    language: setting("OCR_LANGUAGE", source) ?? "eng",
    concurrency: setting("OCR_CONCURRENCY", source) ?? 1,
    timeoutMs: (setting("OCR_TIMEOUT_SECONDS", source) ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
    maxBytes: setting("OCR_MAX_BYTES", source) ?? DEFAULT_MAX_BYTES,
    searchPath: source.PATH ?? "",
  };
}

let cached: { config: OcrConfig; version: number } | undefined;
/** Parsed once, and again after the console changed OCR or OCR_LANGUAGE (lib/settings). */
export function ocrConfig(): OcrConfig {
  const version = storedVersion();
  if (cached?.version !== version) cached = { config: parseOcrConfig(), version };
  return cached.config;
}
export function resetOcrConfig(): void {
  cached = undefined;
}

/** Whether images are read: on, and a binary found. */
export const ocrActive = (): boolean => {
  const config = ocrConfig();
  return config.enabled && config.path !== null;
};

/** Why reading text is off, or null when it is on: for the start-up log and /healthz. */
export function ocrOffReason(config: OcrConfig = ocrConfig()): string | null {
  if (!config.enabled) return "turned off (OCR=off)";
  if (!config.path) return "no tesseract binary (install tesseract-ocr or set TESSERACT_PATH)";
  return null;
}

export interface TesseractVersion {
  path: string | null;
  version: string | null;
  error?: string;
}

/** `tesseract --version` (first line `tesseract 5.3.0`): logged at start, shown by `admin media tools`. */
export function tesseractVersion(config: OcrConfig = ocrConfig()): Promise<TesseractVersion> {
  const { path } = config;
  if (!path) return Promise.resolve({ path: null, version: null, error: "not found" });
  return new Promise((done) => {
    execFile(path, ["--version"], { timeout: 10_000, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      const match = /^tesseract (\S+)/m.exec(`${stdout}\n${stderr}`);
      if (match) done({ path, version: match[1] });
      else
        done({ path, version: null, error: error ? String((error as NodeJS.ErrnoException).code ?? error.message) : "unexpected output" });
    });
  });
}

/** One word of Tesseract's TSV (level 5) with where it sits. */
export interface OcrWord {
  text: string;
  /** 0-100. */
  confidence: number;
  /** Block, paragraph and line numbers: words of one line share them. */
  line: string;
  left: number;
  top: number;
  height: number;
}

export type TesseractFailure = "exit" | "timeout" | "aborted" | "spawn";

export class TesseractError extends Error {
  override name = "TesseractError";
  constructor(
    readonly reason: TesseractFailure,
    message: string,
    readonly stderrTail = "",
  ) {
    super(message);
  }
}

export function parseTesseractTsv(tsv: string): OcrWord[] {
  const words: OcrWord[] = [];
  for (const row of tsv.split("\n").slice(1)) {
    const cells = row.split("\t");
    if (cells.length < 12 || cells[0] !== "5") continue;
    const text = cells.slice(11).join("\t").trim();
    if (!text) continue;
    words.push({
      text,
      confidence: Number(cells[10]),
      line: `${cells[2]}.${cells[3]}.${cells[4]}`,
      left: Number(cells[6]),
      top: Number(cells[7]),
      height: Number(cells[9]),
    });
  }
  return words;
}

/** Only PATH and the thread limit: nothing of the server's environment reaches the child. */
function childEnv(searchPath: string): NodeJS.ProcessEnv {
  const vars: Record<string, string> = { PATH: searchPath, OMP_THREAD_LIMIT: "1" };
  return vars as unknown as NodeJS.ProcessEnv;
}

export interface TesseractOptions {
  language?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export function runTesseract(image: Buffer, opts: TesseractOptions = {}): Promise<OcrWord[]> {
  const config = ocrConfig();
  const path = config.path;
  if (!path) return Promise.reject(new TesseractError("spawn", "tesseract is not installed."));
  const language = opts.language ?? config.language;
  const timeoutMs = opts.timeoutMs ?? config.timeoutMs;
  return new Promise<OcrWord[]>((resolve, reject) => {
    if (opts.signal?.aborted) return reject(new TesseractError("aborted", "tesseract was aborted before it started."));
    const child = spawn(path, ["-", "-", "-l", language, "--psm", "3", "tsv"], {
      stdio: ["pipe", "pipe", "pipe"],
      // One thread: on a shared 2-core box parallel OpenMP loops only slow the server down.
      env: childEnv(config.searchPath),
      windowsHide: true,
    });
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, CHILD_NICENESS);
      } catch {
        // Not permitted in some containers: normal priority then.
      }
    }
    let stdout = "";
    let stderr = "";
    let overflow = false;
    let stopped: "timeout" | "aborted" | undefined;
    const stop = (why: "timeout" | "aborted") => {
      if (stopped) return;
      stopped = why;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(() => stop("timeout"), Math.max(1, timeoutMs));
    const onAbort = () => stop("aborted");
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      if (stdout.length + chunk.length > STDOUT_MAX_CHARS) overflow = true;
      else stdout += chunk;
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-2000);
    });
    // A child that dies before reading all of stdin closes the pipe: the close event tells why.
    child.stdin.on("error", () => undefined);
    child.stdin.end(image);
    let settled = false;
    const finish = (error: TesseractError | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      if (error) reject(error);
      else resolve(parseTesseractTsv(stdout));
    };
    child.on("error", (err) =>
      finish(new TesseractError("spawn", `tesseract could not be started (${(err as NodeJS.ErrnoException).code ?? err.message}).`)),
    );
    child.on("close", (code, signal) => {
      if (stopped === "timeout")
        return finish(new TesseractError("timeout", `tesseract was stopped after ${Math.round(timeoutMs / 1000)} s.`, stderr));
      if (stopped === "aborted") return finish(new TesseractError("aborted", "tesseract was aborted.", stderr));
      if (code !== 0)
        return finish(
          new TesseractError("exit", `tesseract ${code === null ? `was killed by ${signal}` : `exited with code ${code}`}.`, stderr),
        );
      if (overflow) return finish(new TesseractError("exit", "tesseract wrote more output than expected.", stderr));
      finish(null);
    });
  });
}
