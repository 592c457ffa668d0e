/**
 * Received files into posts: processed one at a time, each failing alone; posts written in one
 * transaction after their files are stored, else the files and quota are given back.
 */
import type { ExpirySettings } from "@/lib/posts/expiry-rules";
import { db, type Tx } from "@/lib/db/client";
import { newId } from "@/lib/db/ids";
import { DomainError } from "@/lib/errors";
import { recordUploadedBytes } from "@/lib/metrics/registry";
import { isForeignKeyViolation, isRecordNotFound, isUniqueViolation } from "@/lib/prisma-support";
import { newShareCode } from "@/lib/posts/codes";
import { uniqueName } from "@/lib/posts/names";
import { postOnAdaptiveDelivery } from "@/lib/posts/adaptive";
import type { Privacy } from "@/lib/posts/privacy";
import { forgetDeliverable } from "@/lib/posts/delivery-cache";
import { enqueueJob, notifyJobs } from "@/lib/jobs";
import { HLS_JOB, hlsJobKey } from "@/lib/jobs/hls-job";
import { enqueueOcrJobs } from "@/lib/jobs/ocr-job";
import type { SniffedFile } from "./sniff-received";
import { asFileError } from "./file-error";
import { discardStored, processAndStore, type StoredFile } from "./process";
import { sortNameOf, totalSizeOf } from "@/lib/posts/sort-keys";
import { settleUpload } from "./quota";
import type { Uploader } from "./uploader";
import type { PostRecord } from "@/lib/posts/read";
import { emitPostEvent } from "@/lib/posts/events";

export const ALBUM_MAX_FILES = 9;
export const POST_TYPES = ["album", "single"] as const;
export type PostType = (typeof POST_TYPES)[number];

export interface FailedFile {
  index: number;
  error: DomainError;
}

export interface UploadOutcome {
  /** In request order, as stored (owner's view). */
  posts: PostRecord[];
  failed: FailedFile[];
}

export interface UploadOptions {
  privacy: Privacy;
  expiry?: ExpirySettings;
  domain?: string | null;
  keepMetadata: boolean;
  postType: PostType;
  tmpDir: string;
  /** Priority (HLS) delivery asked for; minutes are read only when the request stored a video (docs/priority-delivery.md). */
  priority: boolean;
}

/** A write racing the account's deletion (issue 39 §4): answered as the 4xx a retry would get, not `internal`. */
const isOwnerGone = (error: unknown): boolean => isForeignKeyViolation(error) || isRecordNotFound(error);

const ownerGone = () => new DomainError("unauthorized", "This account was deleted while the upload was received; nothing was stored.");

async function appendTargetGone(userId: string): Promise<DomainError> {
  const user = await db().user.findUnique({ where: { id: userId }, select: { id: true } });
  return user ? new DomainError("not_found", "The post was deleted while the files were received.") : ownerGone();
}

/** `album` puts the files in one post (9 at most); `single` makes one post per file. */
export async function uploadPosts(uploader: Uploader, files: readonly SniffedFile[], options: UploadOptions): Promise<UploadOutcome> {
  const failed: FailedFile[] = [];
  const groups: SniffedFile[][] = options.postType === "single" ? files.map((f) => [f]) : [files.slice(0, ALBUM_MAX_FILES)];
  if (options.postType === "album") {
    for (const f of files.slice(ALBUM_MAX_FILES)) {
      failed.push({ index: f.index, error: new DomainError("invalid_request", `An album holds at most ${ALBUM_MAX_FILES} files.`) });
    }
  }

  const posts: PostRecord[] = [];
  for (const group of groups) {
    const postId = newId();
    const stored: StoredFile[] = [];
    for (const file of group) {
      try {
        stored.push(
          await processAndStore(file, { postId, keepMetadata: options.keepMetadata, account: uploader.account, tmpDir: options.tmpDir }),
        );
      } catch (error) {
        failed.push({ index: file.index, error: asFileError(error) });
      }
    }
    if (!stored.length) continue;
    let written: { post: PostRecord; jobIds: string[] };
    try {
      written = await writePost(
        postId,
        uploader,
        options.privacy,
        stored,
        await streamsVideos(stored, uploader, options.priority),
        options,
      );
    } catch (error) {
      await discardStored(stored);
      // The account (or team) went while the files were processed: no other post can be written.
      if (isOwnerGone(error)) throw ownerGone();
      for (const f of stored) failed.push({ index: f.index, error: asFileError(error) });
      continue;
    }
    await notifyJobs(written.jobIds);
    recordUploadedBytes("upload", sum(stored));
    posts.push(written.post);
    emitPostEvent({ type: "uploaded", post: written.post });
  }
  failed.sort((a, b) => a.index - b.index);
  return { posts, failed };
}

/** One transaction; every statement returns its row, so the reply needs no read back. */
async function writePost(
  postId: string,
  uploader: Uploader,
  privacy: Privacy,
  stored: StoredFile[],
  priority: boolean,
  { expiry = {}, domain = null }: Pick<UploadOptions, "expiry" | "domain">,
): Promise<{ post: PostRecord; jobIds: string[] }> {
  const names = new Set<string>();
  const files = stored.map((f, i) => {
    const name = uniqueName(f.name, names);
    names.add(name.toLowerCase());
    return { ...fileRow(f, i, name, priority), postId };
  });
  for (let attempt = 0; ; attempt++) {
    try {
      return await db().$transaction(async (tx) => {
        const post = await tx.post.create({
          data: {
            id: postId,
            code: newShareCode(),
            userId: uploader.userId,
            teamId: uploader.teamId,
            appId: uploader.appId,
            privacy,
            moderated: stored.some((f) => f.flagged),
            firstFileGif: stored[0].mimeType === "image/gif",
            fileCount: files.length,
            // The gallery's sort keys (docs/gallery-sort.md): no title yet, so the first file's name.
            totalSize: totalSizeOf(files),
            sortName: sortNameOf(null, files[0].name),
            expiresAt: expiry.expiresAt ?? null,
            maxViews: expiry.maxViews ?? null,
            domain,
            // On adaptive delivery from the upload on, while the stream is built (lib/posts/adaptive.ts).
            priority: postOnAdaptiveDelivery(files),
          },
        });
        // One create per file rather than createManyAndReturn: Prisma caches the query plan
        // of a create but compiles every createMany afresh (~1 ms of the event loop each).
        const fileRows = [];
        // No text yet: it is read in the background (lib/jobs/ocr-job.ts).
        for (const data of files) fileRows.push({ ...(await tx.file.create({ data })), text: null });
        const user = await tx.user.update({ where: { id: uploader.userId }, data: { uploadCount: { increment: 1 } } });
        await settleUpload(tx, uploader.account.subject, stored);
        const jobIds = await streamJobs(tx, files);
        return { post: { ...post, files: fileRows.sort((a, b) => a.index - b.index), user, access: [], tags: [] }, jobIds };
      });
    } catch (error) {
      // A share-code collision is astronomically rare; try another code.
      if (isUniqueViolation(error) && attempt < 3) continue;
      throw error;
    }
  }
}

export interface AppendTarget {
  postId: string;
}

export async function appendFiles(
  target: AppendTarget,
  uploader: Uploader,
  files: readonly SniffedFile[],
  options: Omit<UploadOptions, "postType" | "privacy">,
): Promise<{ failed: FailedFile[] }> {
  let jobIds: string[] = [];
  const failed: FailedFile[] = [];
  const post = await db().post.findUniqueOrThrow({ where: { id: target.postId }, select: { fileCount: true } });
  const room = Math.max(0, ALBUM_MAX_FILES - post.fileCount);
  const accepted = files.slice(0, room);
  for (const f of files.slice(room)) {
    failed.push({ index: f.index, error: new DomainError("invalid_request", `An album holds at most ${ALBUM_MAX_FILES} files.`) });
  }

  const stored: StoredFile[] = [];
  for (const file of accepted) {
    try {
      stored.push(
        await processAndStore(file, {
          postId: target.postId,
          keepMetadata: options.keepMetadata,
          account: uploader.account,
          tmpDir: options.tmpDir,
        }),
      );
    } catch (error) {
      failed.push({ index: file.index, error: asFileError(error) });
    }
  }
  if (stored.length) {
    try {
      const priority = await streamsVideos(stored, uploader, options.priority);
      jobIds = await db().$transaction(async (tx) => {
        const ids = await appendRows(tx, target.postId, stored, priority);
        await settleUpload(tx, uploader.account.subject, stored);
        return ids;
      });
      forgetDeliverable({ postId: target.postId });
      recordUploadedBytes("append", sum(stored));
    } catch (error) {
      await discardStored(stored);
      if (isOwnerGone(error)) throw await appendTargetGone(uploader.userId);
      const reason = error instanceof DomainError ? error : asFileError(error);
      for (const f of stored) failed.push({ index: f.index, error: reason });
      stored.length = 0;
    }
    await notifyJobs(jobIds);
  }
  failed.sort((a, b) => a.index - b.index);
  return { failed };
}

/** Claims slots with a conditional update, so concurrent appends can never pass 9 files. */
async function appendRows(tx: Tx, postId: string, stored: StoredFile[], priority: boolean): Promise<string[]> {
  const { count } = await tx.post.updateMany({
    where: { id: postId, fileCount: { lte: ALBUM_MAX_FILES - stored.length } },
    data: {
      fileCount: { increment: stored.length },
      // The first file stays first, so only the size key changes (docs/gallery-sort.md).
      totalSize: { increment: totalSizeOf(stored) },
      ...(stored.some((f) => f.flagged) ? { moderated: true } : {}),
      ...(priority && stored.some((f) => f.isVideo) ? { priority: true } : {}),
    },
  });
  if (count !== 1) throw new DomainError("invalid_request", `An album holds at most ${ALBUM_MAX_FILES} files.`);
  const existing = await tx.file.findMany({ where: { postId }, select: { name: true, index: true }, orderBy: { index: "desc" } });
  const names = new Set(existing.map((f) => f.name.toLowerCase()));
  let next = (existing[0]?.index ?? -1) + 1;
  const rows = [];
  for (const f of stored) {
    const name = uniqueName(f.name, names);
    names.add(name.toLowerCase());
    const row = fileRow(f, next++, name, priority);
    await tx.file.create({ data: { ...row, postId } });
    rows.push(row);
  }
  return streamJobs(tx, rows);
}

/** Asked for and minutes left; otherwise standard delivery (docs/priority-delivery.md). */
async function streamsVideos(stored: readonly StoredFile[], uploader: Uploader, asked: boolean): Promise<boolean> {
  return asked && stored.some((f) => f.isVideo) && (await uploader.priorityMinutesLeft()) > 0;
}

async function streamJobs(tx: Tx, rows: readonly { id: string; priority: boolean; mimeType: string }[]): Promise<string[]> {
  const ids: string[] = [];
  for (const row of rows) {
    if (row.priority) ids.push((await enqueueJob(HLS_JOB, { fileId: row.id }, { key: hlsJobKey(row.id), tx })).id);
  }
  return [...ids, ...(await enqueueOcrJobs(tx, rows))];
}

function fileRow(f: StoredFile, index: number, name: string, priority: boolean) {
  const stream = priority && f.isVideo;
  return {
    priority: stream,
    streamState: stream ? "queued" : null,
    id: f.id,
    index,
    name,
    storageKey: f.storageKey,
    size: BigInt(f.size),
    mimeType: f.mimeType,
    width: f.width,
    height: f.height,
    duration: f.duration,
    thumbnailKey: f.thumbnailKey,
    kind: f.kind,
    language: f.language,
  };
}

const sum = (files: readonly StoredFile[]) => files.reduce((n, f) => n + f.size, 0);
