/** POST /posts/batch: one action on up to BATCH_MAX_ITEMS posts (docs/bulk-actions.md). */
import { z } from "zod";
import type { Principal } from "../types/principal";
import { privacyField } from "../http/parse";
import { errorBodyOf } from "../errors";
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

export const batchBody = z.discriminatedUnion(
  "action",
  [
    z.object({ action: z.literal("delete"), codes }),
    z.object({ action: z.literal("privacy"), codes, privacy: privacyField.describe("The new privacy of every post") }),
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

export async function handleBatch(principal: Principal, surface: Surface, body: BatchBody): Promise<z.output<typeof batchReply>> {
  const action: BatchAction = body.action === "delete" ? { action: "delete" } : { action: "privacy", privacy: body.privacy };
  const outcome = await runBatch(body.codes, viewerOf(principal, surface), action);
  return {
    action: body.action,
    succeeded: outcome.succeeded,
    failed: outcome.failed.map((f) => ({ index: f.index, code: f.code, error: errorBodyOf(f.error).error })),
  };
}
