/**
 * One received file → one stored file: take the type sniffed from its bytes, process it
 * (orientation, metadata, fast-start remux, thumbnail), check moderation, reserve quota,
 * store. Every failure is a DomainError for that file alone, and leaves nothing behind:
 * reserved quota is given back and stored objects are deleted.
 */
import { join } from "node:path";
import { DomainError, isDomainError } from "../errors";
import { processImage } from "../media/image";
import { isVideoFormat } from "../media/sniff";
import { processVideo } from "../media/video";
import { moderator, screensFiles, sha256File } from "../moderation/moderator";
import { storage } from "../storage";
import { reserveQuota, type Reservation } from "../usage/reserve";
import { abandonPending, journalPending } from "./pending";
import { newId } from "../db/ids";
import { fileNameFor } from "../posts/names";
import type { SniffedFile } from "./sniff-received";

export interface QuotaAccount {
  subject: string;
  quota: number;
}

export interface StoredFile {
  id: string;
  /** Request position, for `failed[].index` and ordering. */
  index: number;
  name: string;
  storageKey: string;
  size: number;
  mimeType: string;
  width: number;
  height: number;
  duration: number | null;
  thumbnailKey: string | null;
  isVideo: boolean;
  flagged: boolean;
  reservation: Reservation;
}

export interface ProcessOptions {
  postId: string;
  keepMetadata: boolean;
  account: QuotaAccount;
  tmpDir: string;
}

/** Processes and stores one file. Throws a DomainError for this file. */
export async function processAndStore(file: SniffedFile, options: ProcessOptions): Promise<StoredFile> {
  if (file.error) throw file.error;
  if (!file.path) throw new DomainError("invalid_request", "The file could not be read.");
  const { sniffed } = file;
  if (!sniffed) {
    throw new DomainError("unsupported_type", "Unsupported file type: upload PNG, JPEG, WebP, GIF, MP4, MOV or MKV.");
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
    : await processImage(file.path, output, { keepMetadata: options.keepMetadata, format });

  const storageKey = `p/${options.postId}/${id}.${result.ext}`;
  const thumbnailKey = isVideo ? `p/${options.postId}/${id}.thumb.jpg` : null;
  // The journal row goes with the reservation, before any object is stored: a crash from
  // here to the post's transaction leaves a row for the recovery sweep (lib/uploads/pending.ts).
  const keys = thumbnailKey ? [storageKey, thumbnailKey] : [storageKey];
  const reservation = await reserveQuota(options.account.subject, result.size, options.account.quota, new Date(), journalPending(id, keys));

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
    flagged,
    reservation,
  };
}

/** Undoes processAndStore for files whose post could not be written. */
export async function discardStored(files: readonly StoredFile[]): Promise<void> {
  await Promise.allSettled(
    files.flatMap((f) => [storage().delete(f.storageKey), f.thumbnailKey ? storage().delete(f.thumbnailKey) : Promise.resolve()]),
  );
  // After the objects are gone: if this fails, the row stays and the sweep finishes the job.
  await Promise.allSettled(files.map((f) => abandonPending(f.id, f.reservation)));
}
