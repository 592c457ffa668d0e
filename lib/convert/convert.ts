/**
 * POST /convert, the domain part (docs/convert.md): nothing is stored. A small request to an
 * image target is converted in memory (docs/performance.md, "Small images converted in
 * memory"); everything else goes through one withTempDir directory. The output file is opened
 * before that directory goes: the open descriptor keeps the bytes readable until the response
 * stream closes it, so no sweeper is needed and a crash leaks nothing.
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

export const CONVERT_FIELD = "file";

/**
 * Room for multipart framing on top of the file cap. Parts after the first are read and
 * discarded, but an endless second part must still end in a 413, not be drained forever.
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
  /** A stream from the output file (reading or cancelling it releases the file), or the bytes converted in memory. */
  body: ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer>;
  size: number;
  mime: string;
  filename: string;
}

type Received<T> = T & { filename: string };

/** The upload as plain values: the route reads them off its request, so this module knows nothing of HTTP. */
export interface ConvertSource {
  /** Null for a chunked body. */
  contentLength: string | null;
  signal: AbortSignal;
  receiveFile(options: { field: string; maxFileBytes: number; tmpDir: string }): Promise<{ path: string; filename: string }>;
  receiveInMemory(options: { field: string; maxFileBytes: number }): Promise<{ bytes: Buffer; filename: string }>;
}

/** Converts the first file of `source` to `target`; its errors are docs/convert.md's. */
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

/** Null when the file is not for this path (not an image, or too many pixels). */
async function convertInMemory(
  input: Received<{ bytes: Buffer }>,
  target: ConvertTarget,
  allowance: ConvertAllowance,
  signal: AbortSignal,
): Promise<ConvertedFile | null> {
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

/** No copy: Node Buffers are never backed by a SharedArrayBuffer. */
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

/** A Free user's unsupported pair is unsupported_type, not plan_required. */
function checkPair(source: Sniffed, target: ConvertTarget, allowance: ConvertAllowance): void {
  if (!canConvert(source.format, target)) {
    throw new DomainError("unsupported_type", `A ${source.format.toUpperCase()} file cannot be converted to ${target}.`);
  }
  if (convertNeedsPlus(source.format, target) && !allowance.videoToGif) {
    throw new DomainError("plan_required", "Converting video to GIF needs Plus or Ultra.");
  }
}

/**
 * A media-layer `internal` error is a DomainError, which the dispatcher answers without
 * logging; rethrown plain it is logged with the request id and the tool's stderr tail.
 */
function serverFault(error: DomainError): Error {
  return new Error(`Conversion failed: ${error.message}`, { cause: error });
}

/** The client left: keeps the dispatcher from logging an ordinary disconnect as a server fault. */
function clientGone(error: unknown): DomainError {
  if (isDomainError(error) && error.type !== "internal") return error;
  return new DomainError("invalid_request", "The client closed the connection before the conversion finished.");
}
