/**
 * Image uploads and the one sharp encoder /convert shares. Per file the cheapest correct path:
 * container surgery when no orientation is to be applied (pixels byte-identical, then one
 * verifying decode), else decode, turn and re-encode (docs/media.md, "Images").
 */
import { open, rename, rm, stat, writeFile } from "node:fs/promises";
import type { Metadata, OutputInfo, Sharp } from "sharp";
import { DomainError } from "@/lib/errors";
import { mediaConfig } from "./config";
import { planRewrite, scanImage, type ContainerInfo, type RewritePlan } from "./image-container";
import { withMediaSlot } from "./limiter";
import { withScratch } from "./scratch";
import { settleBoth } from "./settle";
import { ANIMATION_PIXEL_LIMIT, imageError, IMAGE_PIXEL_LIMIT, openImage, sharpSeconds } from "./sharp";
import { isImageFormat, sniffedType, type ImageFormat, type Sniffed } from "./sniff";

export type ImageResult = {
  width: number;
  /** Height of one frame for animated images. */
  height: number;
  mime: string;
  ext: string;
  size: number;
  animated: boolean;
};

export type ProcessImageOptions = {
  /** Keep EXIF/XMP/IPTC (include-metadata: true). Orientation is applied either way. */
  keepMetadata: boolean;
  format: Sniffed["format"];
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The input is a temporary file the caller gives up: moved rather than written again. */
  consumeInput?: boolean;
};

export type ImageSource = string | Buffer;

export type ImageBytes = { bytes: Buffer; result: ImageResult };

export type ImageTarget = "png" | "jpeg" | "webp" | "gif" | "avif";

/** Files above this are not read into memory for surgery; they take the sharp path. */
export const MAX_SURGERY_BYTES = 128 * 1024 * 1024;

// Encoder settings, chosen for "as close to the original as is reasonable" at server speed
// (docs/performance.md, "Settings and their measured reasons"):
export const JPEG_QUALITY = 90; // mozjpeg off: several times faster, slightly larger files
export const PNG_COMPRESSION = 6; // zlib's sweet spot; 9 is far slower for barely smaller files
export const WEBP_QUALITY = 90; // lossless sources stay lossless (see renderImage)
export const AVIF_QUALITY = 60; // a notch above sharp's default 50: keeps fine detail, still far smaller than JPEG
export const AVIF_EFFORT = 4;

const MULTI_FRAME: ReadonlySet<string> = new Set(["gif", "webp"]);
const canAnimate = (format: string) => MULTI_FRAME.has(format);

export async function processImage(input: string, output: string, opts: ProcessImageOptions): Promise<ImageResult> {
  const { format, keepMetadata } = opts;
  if (!isImageFormat(format)) throw new DomainError("unsupported_type", `processImage does not take ${format} files.`);
  const timeoutMs = opts.timeoutMs ?? mediaConfig().timeoutMs;

  return withMediaSlot(
    async () => {
      try {
        const { size } = await stat(input);
        if (size <= MAX_SURGERY_BYTES) {
          const done = await withScratch(size, async (scratch) => {
            const step = await planImage(await readInto(input, scratch, size), format, keepMetadata);
            if (step.kind === "render") return step;
            // Decoded from memory while the file is written; the pixel data is the input's, so
            // its header already says what the output is.
            const finish = async (out: Buffer, unchanged = false) => {
              const write = unchanged && opts.consumeInput ? rename(input, output) : writeFile(output, out);
              await settleBoth(write, verifyDecodes(out, format, timeoutMs));
              return describeFromHeader(step.meta, format, out.length, step.info);
            };
            return step.plan.changed
              ? withScratch(step.plan.size, (target) => finish(step.plan.writeTo(target)))
              : finish(step.bytes, true);
          });
          if ("mime" in done) return done;
          return await renderAndDescribe(input, output, { format, keepMetadata, timeoutMs, ...done });
        }
        const meta = await readImageHeader(input, format);
        return await renderAndDescribe(input, output, {
          format,
          keepMetadata,
          timeoutMs,
          meta,
          container: null,
          animated: (meta.pages ?? 1) > 1,
        });
      } catch (error) {
        await rm(output, { force: true });
        throw imageError(error);
      }
    },
    { signal: opts.signal, input },
  );
}

/**
 * processImage in memory (POST /convert of a small file). The sharp path's output is bounded
 * by the caller, which sends only images of a few megapixels this way. `header` saves the
 * costliest step of a small file's surgery after the verifying decode.
 */
export async function processImageBytes(input: Buffer, opts: ProcessImageOptions & { header?: Metadata }): Promise<ImageBytes> {
  const { format, keepMetadata } = opts;
  if (!isImageFormat(format)) throw new DomainError("unsupported_type", `processImage does not take ${format} files.`);
  const timeoutMs = opts.timeoutMs ?? mediaConfig().timeoutMs;

  return withMediaSlot(
    async () => {
      try {
        const step = await planImage(input, format, keepMetadata, opts.header);
        if (step.kind === "surgery") {
          const out = step.plan.changed ? step.plan.writeTo(Buffer.allocUnsafe(step.plan.size)) : input;
          await verifyDecodes(out, format, timeoutMs);
          return { bytes: out, result: describeFromHeader(step.meta, format, out.length, step.info) };
        }
        const rendered = await renderImageBytes(input, renderOptions(format, keepMetadata, timeoutMs, step));
        return { bytes: rendered.bytes, result: describeOutput(rendered.info, format, step.container) };
      } catch (error) {
        throw imageError(error);
      }
    },
    { signal: opts.signal, input },
  );
}

type ImageStep =
  | { kind: "surgery"; bytes: Buffer; meta: Metadata; info: ContainerInfo; plan: RewritePlan }
  | { kind: "render"; meta: Metadata; container: ContainerInfo | null; animated: boolean };

async function planImage(bytes: Buffer, format: ImageFormat, keepMetadata: boolean, header?: Metadata): Promise<ImageStep> {
  const meta = header ?? (await readImageHeader(bytes, format));
  const scan = scanImage(bytes, format);
  const animated = (meta.pages ?? 1) > 1 || scan?.info.animated === true;
  if (scan && !needsRotation(meta, animated)) {
    return { kind: "surgery", bytes, meta, info: scan.info, plan: planRewrite(bytes, scan, format, keepMetadata) };
  }
  return { kind: "render", meta, container: scan?.info ?? null, animated };
}

const needsRotation = (meta: Metadata, animated: boolean) => (meta.orientation ?? 1) > 1 && !animated;

async function renderAndDescribe(
  input: string,
  output: string,
  o: { format: ImageFormat; keepMetadata: boolean; timeoutMs: number; meta: Metadata; container: ContainerInfo | null; animated: boolean },
): Promise<ImageResult> {
  const info = await renderImage(input, output, renderOptions(o.format, o.keepMetadata, o.timeoutMs, o));
  return describeOutput(info, o.format, o.container);
}

function renderOptions(
  format: ImageFormat,
  keepMetadata: boolean,
  timeoutMs: number,
  o: { meta: Metadata; container: ContainerInfo | null; animated: boolean },
): RenderOptions {
  return {
    target: format,
    keepMetadata,
    keepFrames: o.animated,
    lossless: o.container?.lossless ?? format !== "jpeg",
    meta: o.meta,
    timeoutMs,
  };
}

async function readInto(path: string, target: Buffer, size: number): Promise<Buffer> {
  const file = await open(path, "r");
  try {
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await file.read(target, filled, size - filled, filled);
      if (bytesRead === 0) break; // shrank meanwhile: the walk or the decode will say what is wrong
      filled += bytesRead;
    }
    return target.subarray(0, filled);
  } finally {
    await file.close();
  }
}

/** Header only (no pixel decoding): format check, pixel limit, orientation, frames. */
export async function readImageHeader(input: ImageSource, format: ImageFormat): Promise<Metadata> {
  let meta: Metadata;
  try {
    meta = await openImage(input, { animated: canAnimate(format) }).metadata();
  } catch (error) {
    throw imageError(error);
  }
  if (meta.format !== format) {
    throw new DomainError("invalid_request", `The file is not a valid ${format.toUpperCase()} image.`);
  }
  // With animated:true, height is all frames stacked: one limit per frame, one for the whole animation.
  const pages = meta.pages ?? 1;
  const frameHeight = pages > 1 ? (meta.pageHeight ?? meta.height / pages) : meta.height;
  if (!meta.width || !meta.height || meta.width * frameHeight > IMAGE_PIXEL_LIMIT || meta.width * meta.height > ANIMATION_PIXEL_LIMIT) {
    throw new DomainError("invalid_request", "The image has too many pixels.");
  }
  return meta;
}

/**
 * Decodes every pixel (and frame) once; throws when the data is truncated or corrupt.
 * Shrinking to 1x1 is the cheapest sink that still reads all of it, streaming in strips:
 * stats() computes entropy and sharpness too (27 s for a 900-frame GIF against 1.6 s),
 * raw() would hold the whole decoded image in memory.
 */
async function verifyDecodes(image: ImageSource, format: ImageFormat, timeoutMs: number): Promise<void> {
  await openImage(image, { animated: canAnimate(format) })
    .timeout({ seconds: sharpSeconds(timeoutMs) })
    .resize(1, 1)
    .raw()
    .toBuffer();
}

export async function describeImage(path: string, format: ImageTarget, container?: ContainerInfo | null): Promise<ImageResult> {
  const meta = await openImage(path, { animated: canAnimate(format) }).metadata();
  const { size } = await stat(path);
  return describeFromHeader(meta, format, size, container);
}

/** describeImage from what sharp reports about its output: no second read. */
export function describeOutput(info: OutputInfo, format: ImageTarget, container?: ContainerInfo | null): ImageResult {
  const pages = info.pages ?? 1;
  return describeFromHeader({ width: info.width, height: info.height, pages, pageHeight: info.pageHeight }, format, info.size, container);
}

type FrameSize = Pick<Metadata, "width" | "height" | "pages" | "pageHeight">;

/** From a header opened with the same `animated` setting. */
function describeFromHeader(meta: FrameSize, format: ImageTarget, size: number, container?: ContainerInfo | null): ImageResult {
  const pages = meta.pages ?? 1;
  const height = pages > 1 ? (meta.pageHeight ?? Math.round(meta.height / pages)) : meta.height;
  const type = targetType(format);
  return {
    width: meta.width,
    height,
    mime: type.mime,
    ext: type.ext,
    size,
    // APNG: libvips reads only its first frame, the container walk knows better.
    animated: pages > 1 || (format === "png" && container?.animated === true),
  };
}

export type RenderOptions = {
  target: ImageTarget;
  keepMetadata: boolean;
  keepFrames: boolean;
  /** A WebP target of a lossless source is written lossless too. */
  lossless: boolean;
  meta: Metadata;
  timeoutMs: number;
};

/** Decode → orient → encode: the one image encoder of the service (uploads and /convert). */
export async function renderImage(input: ImageSource, output: string, o: RenderOptions): Promise<OutputInfo> {
  return imagePipeline(input, o).toFile(output);
}

export async function renderImageBytes(input: ImageSource, o: RenderOptions): Promise<{ bytes: Buffer; info: OutputInfo }> {
  const { data, info } = await imagePipeline(input, o).toBuffer({ resolveWithObject: true });
  return { bytes: data, info };
}

function imagePipeline(input: ImageSource, o: RenderOptions): Sharp {
  // With animated:true sharp stacks the frames into one tall image; for png/jpeg/avif that
  // would come out as a strip, so those targets get the first frame only.
  const keepFrames = o.keepFrames && canAnimate(o.target);
  let img = openImage(input, { animated: keepFrames });
  if (!keepFrames) img = img.autoOrient();
  if (o.keepMetadata)
    img = img.keepMetadata(); // Orientation is reset to 1 by autoOrient
  else if (o.meta.space === "cmyk") img = img.withIccProfile("srgb");
  else img = img.keepIccProfile();
  if (o.meta.hasAlpha && o.target === "jpeg") img = img.flatten({ background: "#ffffff" });
  return encode(img, o).timeout({ seconds: sharpSeconds(o.timeoutMs) });
}

export const keepsFrames = (target: ImageTarget): boolean => canAnimate(target);

function encode(img: Sharp, o: RenderOptions): Sharp {
  switch (o.target) {
    case "jpeg":
      return img.jpeg({
        quality: JPEG_QUALITY,
        mozjpeg: false,
        // Keep full chroma when the source had it (screenshots, graphics).
        chromaSubsampling: o.meta.chromaSubsampling === "4:4:4" ? "4:4:4" : "4:2:0",
      });
    case "png":
      // A palette source (GIF, 8-bit PNG) has <= 256 colours: a palette output is exact and small.
      return img.png({ compressionLevel: PNG_COMPRESSION, palette: o.meta.isPalette === true });
    case "webp":
      return o.lossless ? img.webp({ lossless: true }) : img.webp({ quality: WEBP_QUALITY });
    case "gif":
      return img.gif();
    case "avif":
      return img.avif({ quality: AVIF_QUALITY, effort: AVIF_EFFORT });
  }
}

const TARGET_TYPES: Record<ImageTarget, { mime: string; ext: string }> = {
  png: sniffedType("png"),
  jpeg: sniffedType("jpeg"),
  webp: sniffedType("webp"),
  gif: sniffedType("gif"),
  avif: { mime: "image/avif", ext: "avif" },
};

export function targetType(target: ImageTarget): { mime: string; ext: string } {
  const { mime, ext } = TARGET_TYPES[target];
  return { mime, ext };
}
