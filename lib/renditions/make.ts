/** Making a rendition once (docs/renditions.md): on first request, stored beside the original, single-flight within a process. */
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { DomainError } from "@/lib/errors";
import { mediaConfig } from "@/lib/media/config";
import { withMediaSlot } from "@/lib/media/limiter";
import { imageError, openImage, sharpSeconds } from "@/lib/media/sharp";
import { storage } from "@/lib/storage";
import { withTempDir } from "@/lib/files/temp";
import type { RenditionWidth } from "./widths";

export interface RenditionJob {
  sourceKey: string;
  key: string;
  width: RenditionWidth;
  /** False when the file was deleted meanwhile: the rendition is removed again, so no orphan is left. */
  stillWanted: () => Promise<boolean>;
}

const WEBP_QUALITY = 80;

const inFlight = new Map<string, Promise<void>>();

/** Throws not_found when the source is gone. */
export function ensureRendition(job: RenditionJob): Promise<void> {
  const running = inFlight.get(job.key);
  if (running) return running;
  const made = makeIfMissing(job).finally(() => inFlight.delete(job.key));
  inFlight.set(job.key, made);
  return made;
}

async function makeIfMissing(job: RenditionJob): Promise<void> {
  const store = storage();
  if (await store.stat(job.key)) return;
  await withTempDir(async (dir) => {
    const source = await store.open(job.sourceKey);
    if (!source) throw new DomainError("not_found", "No such file.");
    const input = join(dir, "source");
    // To a temp file, not into memory: originals may be large (docs/renditions.md).
    await pipeline(source.body, createWriteStream(input));
    const output = join(dir, "rendition.webp");
    await withMediaSlot(() => render(input, output, job.width), { input });
    await store.putFile(job.key, output, "image/webp");
  });
  if (!(await job.stillWanted())) {
    await store.delete(job.key);
    throw new DomainError("not_found", "No such file.");
  }
}

/** Never upscaled; animations stay animated, stills are turned upright first. */
async function render(input: string, output: string, width: RenditionWidth): Promise<void> {
  const seconds = sharpSeconds(mediaConfig().timeoutMs);
  try {
    const meta = await openImage(input).metadata();
    const animated = (meta.pages ?? 1) > 1 && (meta.format === "gif" || meta.format === "webp");
    const image = animated ? openImage(input, { animated: true }) : openImage(input).rotate();
    await image.resize({ width, withoutEnlargement: true }).webp({ quality: WEBP_QUALITY }).timeout({ seconds }).toFile(output);
  } catch (error) {
    throw imageError(error);
  }
}
