/**
 * Operator moderation of posts (docs/uploads.md, "Posts"; docs/admin-cli.md): `moderated`
 * quarantines a whole post (others get 403 `moderated`, the owner cannot modify it);
 * `restricted` keeps a post out of public listings by forcing it to unlisted for good.
 */
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

/**
 * Restricts the post. A public post becomes unlisted at once ("a restricted post is
 * forced to unlisted"); private and unlisted posts keep their privacy, and any later
 * change to public lands on unlisted (enforced where posts are edited).
 */
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
