/** Operator moderation of posts (docs/uploads.md, "Posts"; docs/admin-cli.md). */
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { isRecordNotFound, WRITE_TRANSACTION } from "@/lib/prisma-support";
import { forgetDeliverable } from "./delivery-cache";
import { emitPostEvent, type ModerationAction } from "./events";
import type { Privacy } from "./privacy";

export type { Privacy };

export interface PostModerationState {
  code: string;
  moderated: boolean;
  restricted: boolean;
  privacy: Privacy;
}

const stateSelect = { code: true, moderated: true, restricted: true, privacy: true } as const;

type StateRow = Omit<PostModerationState, "privacy"> & { privacy: string };

const toState = (row: StateRow): PostModerationState => ({
  ...row,
  privacy: row.privacy === "public" || row.privacy === "unlisted" ? row.privacy : "private",
});

async function updatePost(
  code: string,
  data: { moderated?: boolean; restricted?: boolean; privacy?: Privacy },
  action: ModerationAction,
): Promise<PostModerationState> {
  try {
    const state = toState(await db().post.update({ where: { code }, data, select: stateSelect }));
    forgetDeliverable({ code });
    emitPostEvent({ type: "moderated", code, action });
    return state;
  } catch (error) {
    if (isRecordNotFound(error)) throw new DomainError("not_found", `No post '${code}'.`);
    throw error;
  }
}

export const moderatePost = (code: string): Promise<PostModerationState> => updatePost(code, { moderated: true }, "moderated");

export const unmoderatePost = (code: string): Promise<PostModerationState> => updatePost(code, { moderated: false }, "released");

/** A public post becomes unlisted at once; any later change to public lands on unlisted. */
export async function restrictPost(code: string): Promise<PostModerationState> {
  try {
    const post = await db().$transaction(async (tx) => {
      // Writes only (see WRITE_TRANSACTION); the second throws P2025 for an unknown code.
      await tx.post.updateMany({ where: { code, privacy: "public" }, data: { privacy: "unlisted" } });
      return tx.post.update({ where: { code }, data: { restricted: true }, select: stateSelect });
    }, WRITE_TRANSACTION);
    forgetDeliverable({ code });
    emitPostEvent({ type: "moderated", code, action: "restricted" });
    return toState(post);
  } catch (error) {
    if (isRecordNotFound(error)) throw new DomainError("not_found", `No post '${code}'.`);
    throw error;
  }
}
