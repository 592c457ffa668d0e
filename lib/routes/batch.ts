/** POST /posts/batch: one action on up to BATCH_MAX_ITEMS posts (docs/bulk-actions.md). */
import { z } from "zod";
import type { Principal } from "../types/principal";
import { privacyField } from "../http/parse";
import { errorBodyOf } from "../errors";
import { folderNotFound, getFolder } from "../folders/folders";
import type { Surface } from "../http/route";
import { BATCH_ACTIONS, BATCH_MAX_ITEMS, runBatch, type BatchAction } from "../posts/batch";
import { viewerOf } from "./posts";

// Items are checked one by one (a malformed code fails alone, as its index); the list
// itself must be a non-empty array of at most BATCH_MAX_ITEMS distinct strings.
const codes = z
  .array(z.string({ error: "codes must hold strings." }).max(64, "codes must be at most 64 characters each."), {
    error: "codes must be a JSON array of share codes.",
  })
  .min(1, "codes must name at least one post.")
  .max(BATCH_MAX_ITEMS, `codes may name at most ${BATCH_MAX_ITEMS} posts per request.`)
  .refine((list) => new Set(list).size === list.length, "codes must not repeat a code.")
  .describe(`Share codes, 1 to ${BATCH_MAX_ITEMS}, distinct`);

const folderRef = z
  .string({ error: "folder must be a folder id." })
  .min(1, "folder must be a folder id.")
  .max(64, "folder must be a folder id.")
  .describe("folder_add, folder_remove: the caller's folder (its id; docs/folders.md)");

export const batchBody = z.discriminatedUnion(
  "action",
  [
    z.object({ action: z.literal("delete"), codes }),
    z.object({ action: z.literal("privacy"), codes, privacy: privacyField.describe("The new privacy of every post") }),
    z.object({ action: z.literal("folder_add"), codes, folder: folderRef }),
    z.object({ action: z.literal("folder_remove"), codes, folder: folderRef }),
  ],
  { error: `action must be ${BATCH_ACTIONS.join(" or ")}.` },
);
export type BatchBody = z.output<typeof batchBody>;

export const batchReply = z.object({
  action: z.enum(BATCH_ACTIONS),
  succeeded: z.array(
    z.object({
      index: z.number().int(),
      code: z.string(),
      privacy: privacyField
        .optional()
        .describe("privacy action: the post's privacy afterwards (team posts stay private, restricted posts unlisted)"),
    }),
  ),
  failed: z.array(
    z.object({
      index: z.number().int().describe("Zero-based position of the code in `codes`"),
      code: z.string(),
      error: z.looseObject({ type: z.string(), message: z.string() }),
    }),
  ),
});

/** The action to run; a folder action first checks that the folder is the caller's (404 for the whole request). */
async function batchAction(principal: Principal, body: BatchBody): Promise<BatchAction> {
  switch (body.action) {
    case "delete":
      return { action: "delete" };
    case "privacy":
      return { action: "privacy", privacy: body.privacy };
    default: {
      // Folders are a person's: a team key has none.
      if (principal.kind === "team") throw folderNotFound();
      const folder = await getFolder(principal.user.id, body.folder);
      return { action: body.action, folderId: folder.id };
    }
  }
}

export async function handleBatch(principal: Principal, surface: Surface, body: BatchBody): Promise<z.output<typeof batchReply>> {
  const action = await batchAction(principal, body);
  const outcome = await runBatch(body.codes, viewerOf(principal, surface), action);
  return {
    action: body.action,
    succeeded: outcome.succeeded,
    failed: outcome.failed.map((f) => ({ index: f.index, code: f.code, error: errorBodyOf(f.error).error })),
  };
}
