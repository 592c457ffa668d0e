/**
 * One action on many posts (docs/bulk-actions.md): each post goes through the one-post rules in
 * its own transaction and fails alone, one after another, so a batch never costs more at once.
 */
import { DomainError, isDomainError } from "@/lib/errors";
import type { Privacy } from "./privacy";
import { isShareCode } from "./codes";
import { updatePost } from "./edit";
import type { Viewer } from "./read";
import { deletePost } from "./remove";

/** Posts one batch may name; more is a 400 for the whole request. */
export const BATCH_MAX_ITEMS = 100;

export const BATCH_ACTIONS = ["delete", "privacy", "folder_add", "folder_remove", "tag_add", "tag_remove", "favorite"] as const;

/** Folders are built on posts, so posts hand the folder step to the caller rather than import it (docs/folders.md). */
export type BatchAction =
  | { action: "delete" }
  | { action: "privacy"; privacy: Privacy }
  | { action: "folder_add"; apply: FolderStep }
  | { action: "folder_remove"; apply: FolderStep }
  // docs/tags.md: the caller's tag, checked before the batch runs, as a folder is.
  | { action: "tag_add"; apply: FolderStep }
  | { action: "tag_remove"; apply: FolderStep }
  | { action: "favorite"; favorite: boolean };
type FolderStep = (code: string, viewer: Viewer) => Promise<void>;

export interface BatchDone {
  index: number;
  code: string;
  /** `privacy` action: the post's privacy afterwards (team posts stay private, restricted ones unlisted). */
  privacy?: Privacy;
}

export interface BatchFailed {
  index: number;
  code: string;
  error: DomainError;
}

export interface BatchOutcome {
  succeeded: BatchDone[];
  failed: BatchFailed[];
}

async function applyTo(code: string, viewer: Viewer, action: BatchAction): Promise<Omit<BatchDone, "index">> {
  // A malformed code cannot name a post; the one-post endpoints answer 400 for it too.
  if (!isShareCode(code)) throw new DomainError("invalid_request", "code is not a valid share code.");
  if (action.action === "delete") {
    await deletePost(code, viewer);
    return { code };
  }
  if (action.action === "favorite") {
    await updatePost(code, viewer, { favorite: action.favorite });
    return { code };
  }
  if (action.action !== "privacy") {
    await action.apply(code, viewer);
    return { code };
  }
  const { privacy } = await updatePost(code, viewer, { privacy: action.privacy });
  return { code, privacy };
}

export async function runBatch(codes: readonly string[], viewer: Viewer, action: BatchAction): Promise<BatchOutcome> {
  const outcome: BatchOutcome = { succeeded: [], failed: [] };
  for (const [index, code] of codes.entries()) {
    try {
      outcome.succeeded.push({ index, ...(await applyTo(code, viewer, action)) });
    } catch (error) {
      if (!isDomainError(error)) console.error(`batch ${action.action}: post ${code} failed`, error);
      const reported = isDomainError(error) ? error : new DomainError("internal", "This post could not be changed; try again.");
      outcome.failed.push({ index, code, error: reported });
    }
  }
  return outcome;
}
