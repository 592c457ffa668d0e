/**
 * One received file → one stored file. Every failure is a DomainError for that file alone and
 * leaves nothing behind: reserved quota is given back, stored objects deleted.
 */
import { join } from "node:path";
import { DomainError, isDomainError } from "@/lib/errors";
import { processImage } from "@/lib/media/image";
import { describeFileKind } from "@/lib/media/kind-name";
import { isVideoFormat } from "@/lib/media/sniff";
import { processVideo } from "@/lib/media/video";
import { moderator, screensFiles, sha256File } from "@/lib/moderation/moderator";
import { storage } from "@/lib/storage";
import { abandonPending, type QuotaAccount, type Reservation, reserveFile } from "./quota";
import { newId } from "@/lib/db/ids";
import { fileNameFor } from "@/lib/posts/names";
import type { SniffedFile } from "./sniff-received";
import { env } from "@/lib/config/env";
import { detectOtherKind, type OtherKind } from "./file-kind";
import { withMediaSlot } from "@/lib/media/limiter";
import { openImage } from "@/lib/media/sharp";

export type { QuotaAccount };

export interface StoredFile {
  id: string;
  index: number;
  name: string;
  storageKey: string;
  size: number;
  mimeType: string;
  width: number | null;
  height: number | null;
  duration: number | null;
  thumbnailKey: string | null;
  isVideo: boolean;
  kind: "media" | "text" | "file";
  language: string | null;
  flagged: boolean;
  reservation: Reservation;
}

export interface ProcessOptions {
  postId: string;
  keepMetadata: boolean;
  account: QuotaAccount;
  tmpDir: string;
}

export async function processAndStore(file: SniffedFile, options: ProcessOptions): Promise<StoredFile> {
  if (file.error) throw file.error;
  if (!file.path) throw new DomainError("invalid_request", "The file could not be read.");
  const { sniffed } = file;
  if (!sniffed) {
    // Not a media type: a text or other file when UPLOAD_FILES lets it in (docs/file-kinds.md).
    const other = await detectOtherKind(file.path, file.filename, file.size, env().UPLOAD_FILES);
    if (other) return storeAsIs(file, file.path, other, options);
    // The refusal names what the file is (issue 39 §5), then what is accepted.
    throw new DomainError(
      "unsupported_type",
      `Unsupported file type: this is ${await describeFileKind(file.path)}. Upload PNG, JPEG, WebP, GIF, MP4, MOV, MKV or WebM.`,
    );
  }

  // Before processing: a video's temp file may be moved into the output.
  const screen = moderator();
  const flagged = screensFiles(screen) && screen.flagsFile(file.sha256 ?? (await sha256File(file.path)));

  const id = newId();
  const output = join(options.tmpDir, `${id}.out`);
  const thumbPath = join(options.tmpDir, `${id}.thumb.jpg`);
  const format = sniffed.format;
  const isVideo = isVideoFormat(format);
  const result = isVideo
    ? await processVideo(file.path, output, thumbPath, { keepMetadata: options.keepMetadata, consumeInput: true, format })
    : await processImage(file.path, output, { keepMetadata: options.keepMetadata, format, consumeInput: true });

  const storageKey = `p/${options.postId}/${id}.${result.ext}`;
  const thumbnailKey = isVideo ? `p/${options.postId}/${id}.thumb.jpg` : null;
  // The journal row goes with the reservation, before any object is stored: a crash from
  // here to the post's transaction leaves a row for the recovery sweep (lib/uploads/quota.ts).
  const keys = thumbnailKey ? [storageKey, thumbnailKey] : [storageKey];
  const reservation = await reserveFile(options.account, id, result.size, keys);

  try {
    await storage().putFile(storageKey, output, result.mime);
    if (thumbnailKey) await storage().putFile(thumbnailKey, thumbPath, "image/jpeg");
  } catch (error) {
    await Promise.allSettled([storage().delete(storageKey), thumbnailKey ? storage().delete(thumbnailKey) : null]);
    await abandonPending(id, reservation);
    throw isDomainError(error) ? error : new DomainError("internal", "The file could not be stored.");
  }

  return {
    id,
    index: file.index,
    name: fileNameFor(file.filename, result.ext),
    storageKey,
    size: result.size,
    mimeType: result.mime,
    width: result.width,
    height: result.height,
    duration: "duration" in result ? result.duration : null,
    thumbnailKey,
    isVideo,
    kind: "media",
    language: null,
    flagged,
    reservation,
  };
}

/** A text or other file: stored byte-exact; images sharp reads though unlisted get their size, for a WebP rendition. */
async function storeAsIs(file: SniffedFile, path: string, other: OtherKind, options: ProcessOptions): Promise<StoredFile> {
  const screen = moderator();
  const flagged = screensFiles(screen) && screen.flagsFile(file.sha256 ?? (await sha256File(path)));
  const id = newId();
  const size = file.size;
  const pixels = other.kind === "file" && other.image ? await readableImageSize(path) : null;
  // An image libvips cannot read is kept as a download only (no rendition is tried: docs/file-kinds.md).
  const mimeType = other.kind === "file" && other.image && !pixels ? "application/octet-stream" : other.mime;
  // Not the client's extension: a key ending in a media extension must carry that type (lib/storage/keys.ts).
  const storageKey = `p/${options.postId}/${id}.${other.kind === "text" ? "txt" : "bin"}`;
  const reservation = await reserveFile(options.account, id, size, [storageKey]);
  try {
    await storage().putFile(storageKey, path, mimeType);
  } catch (error) {
    await Promise.allSettled([storage().delete(storageKey)]);
    await abandonPending(id, reservation);
    throw isDomainError(error) ? error : new DomainError("internal", "The file could not be stored.");
  }
  return {
    id,
    index: file.index,
    name: fileNameFor(file.filename || `${other.kind}.${other.ext}`, other.ext),
    storageKey,
    size,
    mimeType,
    width: pixels?.width ?? null,
    height: pixels?.height ?? null,
    duration: null,
    thumbnailKey: null,
    isVideo: false,
    kind: other.kind,
    language: other.kind === "text" ? other.language : null,
    flagged,
    reservation,
  };
}

/** A 1 px render proves the pixels read; null when they do not. */
async function readableImageSize(path: string): Promise<{ width: number; height: number } | null> {
  return withMediaSlot(
    async () => {
      try {
        const meta = await openImage(path).metadata();
        await openImage(path).resize(1, 1).webp().toBuffer();
        return meta.width && meta.height ? { width: meta.width, height: meta.height } : null;
      } catch {
        return null;
      }
    },
    { input: path },
  );
}

export async function discardStored(files: readonly StoredFile[]): Promise<void> {
  await Promise.allSettled(
    files.flatMap((f) => [storage().delete(f.storageKey), f.thumbnailKey ? storage().delete(f.thumbnailKey) : Promise.resolve()]),
  );
  // After the objects are gone: if this fails, the row stays and the sweep finishes the job.
  await Promise.allSettled(files.map((f) => abandonPending(f.id, f.reservation)));
}
