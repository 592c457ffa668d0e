/**
 * Follows (docs/relay-social.md). Every change locks both users' rows first (`lockUsers`), so
 * the counts stay exact, a follow racing a block never ends across it, and one recipient's
 * follow notifications group in order.
 */
import type { Prisma, Tx } from "@/lib/db/client";
import { db } from "@/lib/db/client";
import { keysetPage, type Page, type Position } from "@/lib/db/paging";
import { DomainError } from "@/lib/errors";
import { isUniqueViolation } from "@/lib/prisma-support";
import type { UserRecord } from "@/lib/users/profile";
import { notify, retractNotification } from "./notifications";
import { blockBetween, blockedError, lockUsers, resolveUser, visibleUserWhere } from "./relations";

export interface FollowState {
  following: boolean;
  followerCount: number;
}

async function followerCountOf(client: Pick<Tx, "user">, userId: string): Promise<number> {
  const user = await client.user.findUnique({ where: { id: userId }, select: { followerCount: true } });
  return user?.followerCount ?? 0;
}

/** True when it existed. */
export async function endFollow(
  tx: Pick<Tx, "follow" | "user" | "notification" | "notificationActor">,
  followerId: string,
  followingId: string,
): Promise<boolean> {
  const { count } = await tx.follow.deleteMany({ where: { followerId, followingId } });
  if (!count) return false;
  await tx.user.update({ where: { id: followingId }, data: { followerCount: { decrement: 1 } }, select: { id: true } });
  await tx.user.update({ where: { id: followerId }, data: { followingCount: { decrement: 1 } }, select: { id: true } });
  await retractNotification(tx, { kind: "follow", recipientId: followingId, actorId: followerId });
  return true;
}

/** Following again is a no-op that answers the current state. */
export async function followUser(userId: string, ref: string): Promise<FollowState> {
  const target = await resolveUser(ref, userId);
  if (target.id === userId) throw new DomainError("forbidden", "You cannot follow yourself.");
  if (target.suspended) throw new DomainError("suspended", "This user is suspended.");
  try {
    return await db().$transaction(async (tx) => {
      await lockUsers(tx, [userId, target.id]);
      await tx.follow.create({ data: { followerId: userId, followingId: target.id }, select: { followerId: true } });
      // Checked after the lock, so a block committed a moment ago is seen.
      if (await blockBetween(tx, userId, target.id)) throw blockedError();
      const followed = await tx.user.update({
        where: { id: target.id },
        data: { followerCount: { increment: 1 } },
        select: { followerCount: true },
      });
      await tx.user.update({ where: { id: userId }, data: { followingCount: { increment: 1 } }, select: { id: true } });
      await notify(tx, { kind: "follow", recipientId: target.id, actorId: userId });
      return { following: true, followerCount: followed.followerCount };
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return { following: true, followerCount: await followerCountOf(db(), target.id) };
  }
}

/** Allowed whatever the other user's state; safe to repeat. */
export async function unfollowUser(userId: string, ref: string): Promise<FollowState> {
  const target = await resolveUser(ref, userId);
  if (target.id === userId) throw new DomainError("forbidden", "You cannot follow yourself.");
  return db().$transaction(async (tx) => {
    await lockUsers(tx, [userId, target.id]);
    await endFollow(tx, userId, target.id);
    return { following: false, followerCount: await followerCountOf(tx, target.id) };
  });
}

/** That user stops following the caller; safe to repeat. */
export async function removeFollower(userId: string, ref: string): Promise<void> {
  const follower = await resolveUser(ref, userId);
  if (follower.id === userId) throw new DomainError("forbidden", "You cannot follow yourself.");
  await db().$transaction(async (tx) => {
    await lockUsers(tx, [userId, follower.id]);
    await endFollow(tx, follower.id, userId);
  });
}

/** 404 unknown, 403 suspended, 403 blocked when a block stands between them and the caller. */
async function listOwner(viewerId: string, ref: string): Promise<UserRecord> {
  const owner = await resolveUser(ref, viewerId);
  if (owner.id === viewerId) return owner;
  if (owner.suspended) throw new DomainError("suspended", "This user is suspended.");
  if (await blockBetween(db(), viewerId, owner.id)) throw blockedError();
  return owner;
}

function afterFollow(idField: "followerId" | "followingId", after: Position | undefined): Prisma.FollowWhereInput {
  if (!after) return {};
  const at = new Date(after.t);
  return { OR: [{ createdAt: { lt: at } }, { createdAt: at, [idField]: { lt: after.id } }] };
}

/** Keyset-paged through Follow(followingId, createdAt, followerId); hidden users are left out in the query. */
export async function listFollowers(viewerId: string, ref: string, limit: number, after?: Position): Promise<Page<UserRecord>> {
  const owner = await listOwner(viewerId, ref);
  const page = await keysetPage(
    limit,
    (take) =>
      db().follow.findMany({
        where: { followingId: owner.id, follower: visibleUserWhere(viewerId), ...afterFollow("followerId", after) },
        orderBy: [{ createdAt: "desc" }, { followerId: "desc" }],
        take,
        include: { follower: true },
      }),
    (f) => ({ t: f.createdAt.getTime(), id: f.followerId }),
  );
  return { ...page, items: page.items.map((f) => f.follower) };
}

export async function listFollowing(viewerId: string, ref: string, limit: number, after?: Position): Promise<Page<UserRecord>> {
  const owner = await listOwner(viewerId, ref);
  const page = await keysetPage(
    limit,
    (take) =>
      db().follow.findMany({
        where: { followerId: owner.id, following: visibleUserWhere(viewerId), ...afterFollow("followingId", after) },
        orderBy: [{ createdAt: "desc" }, { followingId: "desc" }],
        take,
        include: { following: true },
      }),
    (f) => ({ t: f.createdAt.getTime(), id: f.followingId }),
  );
  return { ...page, items: page.items.map((f) => f.following) };
}
