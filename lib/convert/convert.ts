/**
 * POST /convert, the domain part: receive the first file of the request, check it against
 * the matrix and the caller's plan, convert it with the media layer (the same pipeline
 * uploads use), and hand back the result.
 *
 * Nothing is stored: no post, no storage object, no usage row (docs/convert.md).
 *
 * Two ways through, with the same checks and answers:
 * - In memory, for a small request (Content-Length up to CONVERT_IN_MEMORY_MAX_BYTES) to an
 *   image target whose source turns out to be an image of a few megapixels: received into a
 *   buffer, converted buffer to buffer, answered from the buffer. No file is ever made, so
 *   there is nothing to clean up; a screenshot conversion saves the file-system calls that
 *   would otherwise cost more than the rest of the request's own work (docs/performance.md,
 *   "Small images converted in memory").
 * - Through temporary files, for everything else (videos, large or chunked requests).
 *   Everything lives in one directory from withTempDir, which removes it when this function
 *   returns or throws (success, any error, client abort, timeout). The reply still has to be
 *   read after that, so the output file is opened *before* the directory goes: the open
 *   descriptor keeps the bytes readable (POSIX unlink semantics) and the response stream
 *   closes it when the body is done or the client leaves, which frees the disk space. No
 *   timer or sweeper is needed, and a crash leaks nothing that the kernel does not reclaim.
 */
import { open, writeFile, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { accountOf, type Principal } from "@/lib/types/principal";
import { DomainError, isDomainError } from "@/lib/errors";
import {
  canConvert,
  convertFile,
  convertImageBytes,
  convertNeedsPlus,
  isImageTarget,
  sniffBuffer,
  sniffFile,
  type ConvertTarget,
  type Sniffed,
} from "@/lib/media";
import { SNIFF_MAX_BYTES } from "@/lib/media/sniff";
import { planLimits } from "@/lib/plans";
import { withTempDir } from "@/lib/files/temp";
import { convertInMemoryMaxBytes, convertTimeoutMs } from "./config";
import { streamFileHandle } from "./file-stream";
import { attachmentFilename } from "./filename";
import { settingsSource } from "@/lib/config/stored-settings";
import { describeFileKind } from "@/lib/media/kind-name";

/** The multipart field the file is read from. */
export const CONVERT_FIELD = "file";

/**
 * Room for multipart framing (boundaries, part headers, a few small fields) on top of the
 * file cap. The whole request counts, parts after the first included: they are read and
 * discarded, never written, but an endless second part must still end in a 413 rather
 * than be drained forever (docs/convert.md, "Size caps": 413 when the file or the whole
 * request is over).
 */
export { MULTIPART_OVERHEAD_BYTES } from "@/lib/uploads/multipart";

/** What a caller may convert: the spec's caps (team keys count as Ultra) and video → GIF. */
export interface ConvertAllowance {
  maxFileBytes: number;
  videoToGif: boolean;
}

export function convertAllowance(principal: Principal): ConvertAllowance {
  if (principal.kind === "team") return { maxFileBytes: planLimits("team", settingsSource()).convertFileBytes, videoToGif: true };
  const plan = accountOf(principal).plan;
  return { maxFileBytes: planLimits(plan, settingsSource()).convertFileBytes, videoToGif: plan !== "free" };
}

export interface ConvertedFile {
  /**
   * The converted bytes: a stream from the output file (reading it to the end, or cancelling
   * it, releases the file), or the bytes themselves when converted in memory.
   */
  body: ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer>;
  /** Exact length of `body`. */
  size: number;
  mime: string;
  /** `<client's base name>.<target ext>`, sanitized. */
  filename: string;
}

type Received<T> = T & { filename: string };

/**
 * The upload to convert, as plain values: the route reads them off its request
 * (lib/routes/media.ts), so this module knows nothing of HTTP.
 */
export interface ConvertSource {
  /** The request's Content-Length as sent; null when absent (a chunked body). */
  contentLength: string | null;
  /** Aborts when the client disconnects. */
  signal: AbortSignal;
  /** Receives the first file part of `field` into `tmpDir`, refusing one over maxFileBytes. */
  receiveFile(options: { field: string; maxFileBytes: number; tmpDir: string }): Promise<{ path: string; filename: string }>;
  /** The same into memory. */
  receiveInMemory(options: { field: string; maxFileBytes: number }): Promise<{ bytes: Buffer; filename: string }>;
}

/**
 * Converts the first file of `source` to `target`. Errors: invalid_request (no file,
 * empty file, corrupt input, over the time limit, interrupted upload), unsupported_type,
 * plan_required, file_too_large, unavailable (media queue full, with retryAfter).
 */
export async function convertUpload(principal: Principal, source: ConvertSource, target: ConvertTarget): Promise<ConvertedFile> {
  const allowance = convertAllowance(principal);
  // The signal aborts when the client disconnects: ffmpeg is killed, a queued job leaves the queue.
  const signal = source.signal;
  try {
    if (!receivesInMemory(source.contentLength, target)) {
      return await convertOnDisk(
        (tmpDir) => source.receiveFile({ field: CONVERT_FIELD, maxFileBytes: allowance.maxFileBytes, tmpDir }),
        target,
        allowance,
        signal,
      );
    }
    const input = await source.receiveInMemory({ field: CONVERT_FIELD, maxFileBytes: allowance.maxFileBytes });
    const converted = await convertInMemory(input, target, allowance, signal);
    if (converted) return converted;
    // A video, or an image too large to convert in memory: the usual way, from a file.
    return await convertOnDisk(
      async (tmpDir) => {
        const path = join(tmpDir, "part-0");
        await writeFile(path, input.bytes);
        return { path, filename: input.filename };
      },
      target,
      allowance,
      signal,
    );
  } catch (error) {
    if (signal.aborted) throw clientGone(error);
    throw isDomainError(error) && error.type === "internal" ? serverFault(error) : error;
  }
}

/** A known, small body to an image target: the only requests received into memory. */
function receivesInMemory(contentLength: string | null, target: ConvertTarget): boolean {
  const declared = Number(contentLength ?? "");
  return isImageTarget(target) && Number.isSafeInteger(declared) && declared > 0 && declared <= convertInMemoryMaxBytes();
}

/** Null when the file is not for this path (not an image, or too many pixels): the caller converts it on disk. */
async function convertInMemory(
  input: Received<{ bytes: Buffer }>,
  target: ConvertTarget,
  allowance: ConvertAllowance,
  signal: AbortSignal,
): Promise<ConvertedFile | null> {
  // Images are known by their signature; anything else is sniffed from the file as usual.
  const source = sniffBuffer(input.bytes.subarray(0, SNIFF_MAX_BYTES));
  if (source?.kind !== "image") return null;
  checkPair(source, target, allowance);
  const output = await convertImageBytes(input.bytes, { source, target, timeoutMs: convertTimeoutMs(), signal });
  if (!output) return null;
  return {
    body: asBody(output.bytes),
    size: output.bytes.length,
    mime: output.mime,
    filename: attachmentFilename(input.filename, output.ext),
  };
}

/** The same bytes as the Uint8Array a Response takes (no copy: Node Buffers are never backed by a SharedArrayBuffer). */
const asBody = (bytes: Buffer): Uint8Array<ArrayBuffer> => new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength);

async function convertOnDisk(
  receive: (tmpDir: string) => Promise<Received<{ path: string }>>,
  target: ConvertTarget,
  allowance: ConvertAllowance,
  signal: AbortSignal,
): Promise<ConvertedFile> {
  let opened: FileHandle | undefined;
  try {
    const { file, ...converted } = await withTempDir(async (tmpDir) => {
      const input = await receive(tmpDir);
      const output = await convertInput(input.path, join(tmpDir, `converted.${target}`), target, allowance, signal);
      // Opened before withTempDir deletes the directory: from here the descriptor holds the bytes.
      opened = await open(/*turbopackIgnore: true*/ output.path, "r");
      // The size of what will be read through this descriptor: Content-Length must match it.
      const { size } = await opened.stat();
      return { file: opened, size, mime: output.mime, filename: attachmentFilename(input.filename, output.ext) };
    });
    return { ...converted, body: streamFileHandle(file, converted.size, signal) };
  } catch (error) {
    // Only reachable with a handle open if removing the directory failed: do not leak it.
    await opened?.close().catch(() => undefined);
    throw error;
  }
}

/** Type from the bytes, then matrix, then plan (so a Free user's bad pair is unsupported_type), then the media layer. */
async function convertInput(
  input: string,
  output: string,
  target: ConvertTarget,
  allowance: ConvertAllowance,
  signal: AbortSignal,
): Promise<{ path: string; mime: string; ext: string }> {
  const source = await sniffFile(input);
  // WebM is an upload type (issue 26 §1) but not a /convert source: answered as before.
  if (!source || source.format === "webm") {
    const what = source ? "a WebM video" : await describeFileKind(input);
    throw new DomainError("unsupported_type", `The file is ${what}, not an image or video type that can be converted.`);
  }
  checkPair(source, target, allowance);
  // The input is this request's temporary file (removed with its directory): it may be moved.
  const result = await convertFile(input, output, { source, target, timeoutMs: convertTimeoutMs(), signal, consumeInput: true });
  return { path: output, mime: result.mime, ext: result.ext };
}

/** The matrix first, then the plan: a Free user's unsupported pair is unsupported_type, not plan_required. */
function checkPair(source: Sniffed, target: ConvertTarget, allowance: ConvertAllowance): void {
  if (!canConvert(source.format, target)) {
    throw new DomainError("unsupported_type", `A ${source.format.toUpperCase()} file cannot be converted to ${target}.`);
  }
  if (convertNeedsPlus(source.format, target) && !allowance.videoToGif) {
    throw new DomainError("plan_required", "Converting video to GIF needs Plus or Ultra.");
  }
}

/**
 * A media-layer `internal` error (ffmpeg could not start, killed by a signal...) is a
 * DomainError, which the dispatcher answers without logging. Rethrown as a plain error it
 * is logged with the request id (and the tool's stderr tail, kept as the cause) and still
 * answered 500 `internal`.
 */
function serverFault(error: DomainError): Error {
  return new Error(`Conversion failed: ${error.message}`, { cause: error });
}

/**
 * The client left mid-request. Nobody reads the reply; this only keeps the dispatcher from
 * logging an ordinary disconnect (an AbortError, ffmpeg "aborted") as a server fault.
 */
function clientGone(error: unknown): DomainError {
  if (isDomainError(error) && error.type !== "internal") return error;
  return new DomainError("invalid_request", "The client closed the connection before the conversion finished.");
}
