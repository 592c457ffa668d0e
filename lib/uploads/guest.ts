/** A guest's upload into a folder (docs/guest-uploads.md): POST /upload's pipeline with the folder's caps. */
import { addressSubject } from "@/lib/auth/attempts";
import { DomainError } from "@/lib/errors";
import { addToFolder } from "@/lib/folders/folders";
import { claimGuestSpace, type GuestDrop, releaseGuestSpace } from "@/lib/folders/guest";
import { postView } from "@/lib/presenters/posts";
import { counterStore, UPLOAD_BURST } from "@/lib/ratelimit";
import { notifyGuestUpload } from "@/lib/social/notifications";
import { emitWebhookEvent } from "@/lib/webhooks/events";
import type { ReceivedFile } from "./multipart";
import { publishUpload } from "./publish";
import type { UploadOutcome } from "./upload";
import { accountUploader, type Uploader } from "./uploader";

export const GUEST_MAX_PARTS = 50;

/** More than UPLOAD_BURST.max uploads within its window from one address (IPv6: its /64) is 429: guests have no account to suspend. */
export async function checkGuestBurst(ip: string): Promise<void> {
  const count = await counterStore().countRecent(`upload_burst:guest:${addressSubject(ip)}`, UPLOAD_BURST.windowSeconds);
  if (count > UPLOAD_BURST.max) throw new DomainError("rate_limited", "Too many uploads in one second; slow down.");
}

export interface GuestReceiveLimits {
  uploader: Uploader;
  maxFileBytes: number;
  maxRequestBytes: number;
  maxFiles: number;
}

/** 403 quota_exceeded when the folder's caps are reached already. */
export function guestReceiveLimits(drop: GuestDrop): GuestReceiveLimits {
  if (drop.filesLeft === 0 || drop.bytesLeft === 0)
    throw DomainError.in("exhausted", "quota_exceeded", "This folder takes no more uploads.");
  const uploader = accountUploader(drop.owner);
  const { uploadFileBytes, uploadRequestBytes } = uploader.limits;
  return {
    uploader,
    maxFileBytes: Math.min(uploadFileBytes, drop.settings.maxFileBytes ?? Number.POSITIVE_INFINITY),
    maxRequestBytes: Math.min(uploadRequestBytes, drop.bytesLeft ?? Number.POSITIVE_INFINITY),
    maxFiles: Math.min(GUEST_MAX_PARTS, drop.filesLeft ?? GUEST_MAX_PARTS),
  };
}

/** Files are counted against the folder's caps first (given back on failure), so switching the page off mid-body refuses it. */
export async function publishGuestUpload(
  drop: GuestDrop,
  uploader: Uploader,
  files: readonly ReceivedFile[],
  tmpDir: string,
): Promise<UploadOutcome> {
  if (!files.length) throw new DomainError("invalid_request", 'Send the files as multipart/form-data in field "file".');
  const arrived = files.filter((f) => !f.error);
  const sizeOf = (list: readonly ReceivedFile[]) => list.reduce((total, f) => total + f.size, 0);
  if (arrived.length) await claimGuestSpace(drop.folderId, arrived.length, sizeOf(arrived));
  let outcome: UploadOutcome;
  try {
    outcome = await publishUpload(uploader, "api", files, guestChoices, tmpDir);
  } catch (error) {
    await releaseGuestSpace(drop.folderId, arrived.length, sizeOf(arrived));
    throw error;
  }
  const failedIndexes = new Set(outcome.failed.map((f) => f.index));
  const lost = arrived.filter((f) => failedIndexes.has(f.index));
  await releaseGuestSpace(drop.folderId, lost.length, sizeOf(lost));
  await addToFolder(
    drop.folderId,
    outcome.posts.map((p) => p.id),
  );
  await tellOwner(drop, outcome);
  return outcome;
}

const guestChoices = { privacy: "private", keepMetadata: false, priority: false, postType: "single", expiry: {} } as const;

async function tellOwner(drop: GuestDrop, outcome: UploadOutcome): Promise<void> {
  const newest = outcome.posts[outcome.posts.length - 1];
  if (!newest) return;
  // The posts are written: a notification that cannot be recorded is logged, never the guest's error.
  await notifyGuestUpload(drop.owner.id, drop.folderId, newest.id, outcome.posts.length).catch((error: unknown) =>
    console.error(`[guest-uploads] could not notify the owner of folder ${drop.folderId}: ${String(error)}`),
  );
  emitWebhookEvent({
    type: "folder.guest_upload",
    userId: drop.owner.id,
    appId: null,
    data: {
      folder: { id: drop.folderId, code: drop.code, name: drop.name },
      posts: outcome.posts.map((p) => postView(p, { owner: true, liked: false, surface: "api" })),
    },
  });
}
