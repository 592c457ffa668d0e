/** The gallery's bulk actions: delete, change the privacy, folder, tags or favourite mark of the selected posts (docs/bulk-actions.md). */
import { useState } from "react";
import { countOf } from "@/components/plural";
import { api, type BatchReply, type Privacy } from "./api";

/** Posts per POST /api/posts/batch (the server's BATCH_MAX_ITEMS). */
const BATCH_SIZE = 100;

export type BatchAction =
  | { action: "delete" }
  | { action: "privacy"; privacy: Privacy }
  | { action: "folder_add" | "folder_remove"; folder: string; name: string }
  | { action: "tag_add" | "tag_remove"; tag: string; name: string }
  | { action: "favorite"; favorite: boolean };

function verbOf(action: BatchAction): string {
  if (action.action === "delete") return "deleted";
  if (action.action === "privacy") return `set to ${action.privacy}`;
  if (action.action === "favorite") return action.favorite ? "marked favourite" : "unmarked";
  if (action.action === "tag_add") return `tagged ${action.name}`;
  if (action.action === "tag_remove") return `no longer tagged ${action.name}`;
  return action.action === "folder_add" ? `added to ${action.name}` : `removed from ${action.name}`;
}

/** One batch request per 100 codes; the replies' results together. */
async function runBatch(codes: string[], action: BatchAction): Promise<{ done: number; failed: BatchReply["failed"] }> {
  let done = 0;
  const failed: BatchReply["failed"] = [];
  for (let start = 0; start < codes.length; start += BATCH_SIZE) {
    const chunk = codes.slice(start, start + BATCH_SIZE);
    // `name` is for the notice only.
    const { name: _, ...wire } = { name: "", ...action };
    const reply = await api<BatchReply>("/api/posts/batch", { method: "POST", body: JSON.stringify({ ...wire, codes: chunk }) });
    done += reply.succeeded.length;
    failed.push(...reply.failed);
  }
  return { done, failed };
}

/** "28 deleted; 2 could not be: No such post." */
function batchNotice(verb: string, done: number, failed: BatchReply["failed"]): string {
  if (!failed.length) return `${countOf(done, "post")} ${verb}.`;
  const reasons = [...new Set(failed.map((f) => f.error.message))].join(" ");
  return `${countOf(done, "post")} ${verb}; ${failed.length} could not be: ${reasons}`;
}

/**
 * The whole selection in one request (docs/bulk-actions.md): no 429s past 20 posts. What
 * failed stays selected; the outcome is the gallery's notice.
 */
export function useBatchActions(
  selected: Set<string>,
  setSelected: (codes: Set<string>) => void,
  setNotice: (notice: string) => void,
  refresh: () => void,
): { busy: boolean; applyToSelected: (action: BatchAction) => Promise<void> } {
  const [busy, setBusy] = useState(false);
  const applyToSelected = async (action: BatchAction) => {
    const codes = [...selected];
    setBusy(true);
    try {
      const { done, failed } = await runBatch(codes, action);
      setNotice(batchNotice(verbOf(action), done, failed));
      setSelected(new Set(failed.map((f) => f.code)));
    } catch (error) {
      setNotice(error instanceof Error ? error.message : "The change failed.");
    } finally {
      setBusy(false);
      refresh();
    }
  };
  return { busy, applyToSelected };
}
