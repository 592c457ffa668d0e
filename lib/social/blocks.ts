/**
 * Blocks. A block hides each side from the other (discover, comments, follower lists,
 * notifications), ends follows both ways, and refuses likes, comments, comment likes,
 * follows and reports across it with 403 `blocked` (relations.ts has the checks).
 */
import { db } from "@/lib/db/client";
import { keysetPage, type Page, type Position } from "@/lib/db/paging";
import { DomainError } from "@/lib/errors";
import { isUniqueViolation } from "@/lib/prisma-support";
import type { UserRecord } from "@/lib/users/profile";
import { endFollow } from "./follows";
import { forgetNotificationsBetween } from "./notifications";
import { lockUsers, ME, resolveUser } from "./relations";

export interface BlockItem {
  user: UserRecord;
  createdAt: Date;
}

/**
 * POST /users/{id}/block: records the block, ends both follows (counts adjusted) and
 * removes each side from the other's notifications, in one transaction that starts by
 * locking both users (as follows do), so no follow can slip in beside it. Blocking a
 * suspended user is allowed. Blocking again is a no-op.
 */
export async function blockUser(userId: string, ref: string): Promise<void> {
  const target = await resolveUser(ref, userId);
  if (target.id === userId) throw new DomainError("forbidden", "You cannot block yourself.");
  try {
    await db().$transaction(async (tx) => {
      await lockUsers(tx, [userId, target.id]);
      await tx.block.create({ data: { blockerId: userId, blockedId: target.id }, select: { blockerId: true } });
      await endFollow(tx, userId, target.id);
      await endFollow(tx, target.id, userId);
      await forgetNotificationsBetween(tx, userId, target.id);
    });
  } catch (error) {
    // Already blocked: the first block already did the rest.
    if (!isUniqueViolation(error)) throw error;
  }
}

/** DELETE /users/{id}/block: safe to repeat. Follows ended by the block stay ended. */
export async function unblockUser(userId: string, ref: string): Promise<void> {
  const target = await resolveUser(ref, userId);
  if (target.id === userId) throw new DomainError("forbidden", "You cannot block yourself.");
  await db().block.deleteMany({ where: { blockerId: userId, blockedId: target.id } });
}

/**
 * GET /users/{id}/blocks: only the caller's own list (`@me`, their id or username);
 * anyone else's is 403 forbidden, whether or not that user exists. Newest first,
 * keyset-paged on (createdAt, blockedId) through Block(blockerId, createdAt, blockedId).
 * Suspended users stay listed: the list is where they are unblocked.
 */
export async function listBlocks(userId: string, ref: string, limit: number, after?: Position): Promise<Page<BlockItem>> {
  const own =
    ref === ME ||
    ref === userId ||
    (await db().user.findUnique({ where: { id: userId }, select: { username: true } }))?.username === ref.toLowerCase();
  if (!own) throw new DomainError("forbidden", "Only your own blocks can be listed (use @me).");
  const at = after ? new Date(after.t) : null;
  const page = await keysetPage(
    limit,
    (take) =>
      db().block.findMany({
        where: {
          blockerId: userId,
          ...(after && at ? { OR: [{ createdAt: { lt: at } }, { createdAt: at, blockedId: { lt: after.id } }] } : {}),
        },
        orderBy: [{ createdAt: "desc" }, { blockedId: "desc" }],
        take,
        include: { blocked: true },
      }),
    (b) => ({ t: b.createdAt.getTime(), id: b.blockedId }),
  );
  return { ...page, items: page.items.map((b) => ({ user: b.blocked, createdAt: b.createdAt })) };
}
