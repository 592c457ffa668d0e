/**
 * sharp for untrusted images. Cache off: a file cache keyed by path can serve stale pixels when a
 * temp path is reused. Concurrency is sharp's default, one thread per image on glibc unless
 * MALLOC_ARENA_MAX is set (`npm start` sets it). A pixel limit fails decompression bombs on the
 * header; `failOn: "error"` refuses corrupt data but not libjpeg warnings browsers ignore.
 */
import type SharpModule from "sharp";
import type { Sharp, SharpOptions } from "sharp";
import { optionalPackage } from "@/lib/config/packages";
import { DomainError, isDomainError } from "@/lib/errors";

/** 0x3FFF × 0x3FFF, sharp's default: about 268 megapixels for a still image or one frame. */
export const IMAGE_PIXEL_LIMIT = 268_402_689;
/**
 * All frames of an animation together (2^30, about 1.07 gigapixels, e.g. 1,500 frames of
 * 800x450). sharp counts an animation as one tall image; with the still-image limit an
 * ordinary long GIF would be refused. Decoding streams frame by frame, so this bounds time
 * (a few seconds), not memory.
 */
export const ANIMATION_PIXEL_LIMIT = 1_073_741_824;

let loaded: typeof SharpModule | undefined;
/**
 * sharp and libvips, loaded with the first image: a static import would load them (~0.1 s)
 * in every process that links this module, the admin CLI's included (docs/admin-cli.md,
 * "Speed"), through the job registry and the post presenters.
 */
function sharpModule(): typeof SharpModule {
  if (loaded) return loaded;
  loaded = optionalPackage<typeof SharpModule>("sharp");
  loaded.cache(false);
  return loaded;
}

export function openImage(input: string | Buffer, options: SharpOptions = {}): Sharp {
  const sharp = sharpModule();
  const limitInputPixels = options.animated ? ANIMATION_PIXEL_LIMIT : IMAGE_PIXEL_LIMIT;
  return sharp(input, { failOn: "error", limitInputPixels, ...options });
}

/** sharp's timeout is in whole seconds (0 would mean none). */
export const sharpSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

const IO_FAILURE = /unable to open .*for writ|no space left|read-only file system|permission denied/i;

/**
 * sharp throws plain Errors for everything. A failure while reading or decoding means the
 * upload is bad (invalid_request); a failure to write the output is ours (rethrown as is,
 * so it ends as a 500). Timeouts are reported as the file's fault, like video.
 */
export function imageError(error: unknown, what = "image"): unknown {
  if (isDomainError(error)) return error;
  const e = error as NodeJS.ErrnoException;
  if (e && typeof e.code === "string") return error; // fs errors from our own reads and writes
  const message = e instanceof Error ? e.message : String(error);
  if (IO_FAILURE.test(message)) return error;
  if (/timeout/i.test(message)) return withCause(new DomainError("invalid_request", `The ${what} took too long to process.`), error);
  if (/pixel limit/i.test(message)) return withCause(new DomainError("invalid_request", `The ${what} has too many pixels.`), error);
  return withCause(new DomainError("invalid_request", `The ${what} is corrupt or could not be decoded.`), error);
}

export function withCause<E extends Error>(error: E, cause: unknown): E {
  error.cause = cause;
  return error;
}
