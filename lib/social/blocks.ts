/** Blocks (docs/relay-social.md): each side hidden from the other, follows ended, engagement across refused (relations.ts checks). */
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

/** One transaction that locks both users first (as follows do), so no follow slips in beside it. Blocking again is a no-op. */
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
    if (!isUniqueViolation(error)) throw error;
  }
}

/** Safe to repeat; follows ended by the block stay ended. */
export async function unblockUser(userId: string, ref: string): Promise<void> {
  const target = await resolveUser(ref, userId);
  if (target.id === userId) throw new DomainError("forbidden", "You cannot block yourself.");
  await db().block.deleteMany({ where: { blockerId: userId, blockedId: target.id } });
}

/** Only the caller's own list (anyone else's is 403 whether or not the user exists); suspended users stay listed to be unblocked. */
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
