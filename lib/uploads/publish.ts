/**
 * The upload verbs the surfaces call: received files → posts (POST /upload) or more files
 * of a post (POST /posts/{code}/files), with the rules around them: a team's posts are
 * private, priority minutes, every file failed. Shared by the multipart endpoints and the
 * last PATCH of a resumable upload (docs/resumable-uploads.md): one pipeline, one set of
 * rules and errors. The route adapters only parse the request and shape the reply.
 */
import { DomainError } from "@/lib/errors";
import type { ExpirySettings } from "@/lib/posts/expiry-rules";
import type { Privacy } from "@/lib/posts/privacy";
import { findPostByCode, postForChange, type PostRecord, type Viewer } from "@/lib/posts/read";
import { failedFilesView } from "@/lib/presenters/failed-files";
import type { Surface } from "@/lib/types/surface";
import { nextPriorityReset } from "@/lib/usage/priority";
import { weeklyUsage } from "@/lib/usage/quota";
import type { ReceivedFile } from "./multipart";
import { sniffReceived, type SniffedFile } from "./sniff-received";
import { appendFiles, uploadPosts, type FailedFile, type PostType, type UploadOutcome } from "./upload";
import type { Uploader } from "./uploader";

/** What the uploader chose for POST /upload (its headers, or a resumable upload's metadata). */
export interface UploadChoices {
  /** Decided by postPrivacy. */
  privacy: Privacy;
  keepMetadata: boolean;
  /** Priority delivery asked for (the `priority` header, default true). */
  priority: boolean;
  postType: PostType;
  /** `expires-at` and `max-views` (docs/expiry.md). */
  expiry: ExpirySettings;
  /** `x-mediahost-domain` (docs/domains.md); null or absent: the author's default domain. */
  domain?: string | null;
}

/**
 * A team's posts are always private: the privacy the request asks for is not even read for
 * them, so a team key's invalid post-privacy is ignored rather than refused (docs/architecture.md,
 * "An upload's path"; docs/uploads.md, "Privacy, teams, priority"). `asked` throws the
 * request's error for a bad value.
 */
export function postPrivacy(uploader: Uploader, asked: () => Privacy): Privacy {
  return uploader.teamId ? "private" : asked();
}

/** POST /upload: the posts written (at least one) and the files that failed. */
export async function publishUpload(
  uploader: Uploader,
  surface: Surface,
  files: readonly ReceivedFile[],
  choices: UploadChoices,
  tmpDir: string,
): Promise<UploadOutcome> {
  const sniffed = await sniffReceived(files);
  await checkPriorityMinutes(sniffed, choices.priority, uploader, surface);
  const outcome = await uploadPosts(uploader, sniffed, { ...choices, tmpDir });
  if (!outcome.posts.length) throw allFailed(outcome.failed, files.length);
  return outcome;
}

/** Where appended files go: the post `code`, which `viewer` must be allowed to change. */
export interface PostToExtend {
  code: string;
  viewer: Viewer;
}

/** POST /posts/{code}/files: the post as it is after the append, and the files that failed. */
export async function publishAppend(
  uploader: Uploader,
  surface: Surface,
  target: PostToExtend,
  files: readonly ReceivedFile[],
  choices: Pick<UploadChoices, "keepMetadata" | "priority">,
  tmpDir: string,
): Promise<{ post: PostRecord; failed: FailedFile[] }> {
  // Again after the body: the post may have gone (or changed hands) while it arrived.
  const post = await postForChange(target.code, target.viewer);
  const sniffed = await sniffReceived(files);
  await checkPriorityMinutes(sniffed, choices.priority, uploader, surface);
  const { failed } = await appendFiles({ postId: post.id }, uploader, sniffed, { ...choices, tmpDir });
  if (failed.length === files.length) throw allFailed(failed, files.length);
  const fresh = await findPostByCode(target.code);
  if (!fresh) throw new DomainError("not_found", "No such post.");
  return { post: fresh, failed };
}

/**
 * Priority streaming spends priority minutes. With none left, a video upload that asks
 * for it is refused with 403 quota_exceeded on Relay; the API falls back to standard
 * delivery (docs/uploads.md). The error's `quota`, `used` and `resets_at` are the weekly
 * quota's, as on every quota_exceeded (docs/priority-delivery.md, "Priority minutes"); the
 * monthly refill of the minutes is in the message.
 */
async function checkPriorityMinutes(files: readonly SniffedFile[], asked: boolean, uploader: Uploader, surface: Surface): Promise<void> {
  if (!asked || surface !== "relay") return;
  if (!files.some((f) => f.sniffed?.kind === "video")) return;
  if ((await uploader.priorityMinutesLeft()) > 0) return;
  const week = await weeklyUsage(uploader.account.subject, uploader.account.quota);
  const refill = nextPriorityReset().toISOString();
  throw DomainError.in(
    "exhausted",
    "quota_exceeded",
    `No priority minutes left until ${refill}; upload with \`priority: false\` for standard delivery.`,
    { quota: week.quota, used: week.used, resets_at: week.resetsAt.toISOString() },
  );
}

/** Every file failed: one file → its own error; several → upload_failed with the list (or 503 when each was a dependency's). */
function allFailed(failed: readonly FailedFile[], fileCount: number): DomainError {
  if (fileCount === 1 && failed.length === 1) return failed[0].error;
  // Every file refused because a dependency is away (a full volume): the request's 503
  // with Retry-After, as a one-file upload answers (docs/faults.md).
  const unavailable = failed.find((f) => f.error.type === "unavailable");
  if (unavailable && failed.every((f) => f.error.type === "unavailable")) return unavailable.error;
  return new DomainError("upload_failed", "Every file of the upload failed.", undefined, { failed: failedFilesView(failed) });
}
