/**
 * The upload verbs the surfaces call, shared by the multipart endpoints and a resumable upload's
 * last PATCH (docs/resumable-uploads.md): one pipeline, one set of rules and errors.
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

export interface UploadChoices {
  privacy: Privacy;
  keepMetadata: boolean;
  priority: boolean;
  postType: PostType;
  expiry: ExpirySettings;
  /** `x-mediahost-domain` (docs/domains.md); absent: the author's default domain. */
  domain?: string | null;
}

/** A team's posts are always private, so a team key's invalid post-privacy is ignored (docs/uploads.md, "Privacy, teams, priority"). */
export function postPrivacy(uploader: Uploader, asked: () => Privacy): Privacy {
  return uploader.teamId ? "private" : asked();
}

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

export interface PostToExtend {
  code: string;
  viewer: Viewer;
}

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
 * Relay refuses a priority video upload with no minutes left (403 quota_exceeded, the weekly
 * quota's fields); the API falls back to standard delivery (docs/priority-delivery.md, "Priority minutes").
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

/** One file → its own error; several → upload_failed (or 503 when each was a dependency's). */
function allFailed(failed: readonly FailedFile[], fileCount: number): DomainError {
  if (fileCount === 1 && failed.length === 1) return failed[0].error;
  // Every file refused because a dependency is away (a full volume): the request's 503
  // with Retry-After, as a one-file upload answers (docs/faults.md).
  const unavailable = failed.find((f) => f.error.type === "unavailable");
  if (unavailable && failed.every((f) => f.error.type === "unavailable")) return unavailable.error;
  return new DomainError("upload_failed", "Every file of the upload failed.", undefined, { failed: failedFilesView(failed) });
}
