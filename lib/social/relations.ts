/** What every social verb asks first: the other user, a block between the two, whether the caller may touch a post (docs/relay-social.md). */
import type { Prisma, Tx } from "@/lib/db/client";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { readPost, type PostRecord } from "@/lib/posts/read";
import { findUser, type UserRecord } from "@/lib/users/profile";

export const ME = "@me";

/** `@me`, an id or a username; 404 when nobody matches. */
export async function resolveUser(ref: string, callerId: string): Promise<UserRecord> {
  const user = await findUser(ref === ME ? callerId : ref);
  if (!user) throw new DomainError("not_found", "No such user.");
  return user;
}

export async function blockBetween(client: Pick<Tx, "block">, a: string, b: string): Promise<boolean> {
  if (a === b) return false;
  const block = await client.block.findFirst({
    where: {
      OR: [
        { blockerId: a, blockedId: b },
        { blockerId: b, blockedId: a },
      ],
    },
    select: { blockerId: true },
  });
  return !!block;
}

export const blockedError = () => new DomainError("blocked", "A block between you and this user prevents this.");

export async function assertNoBlock(client: Pick<Tx, "block">, a: string, b: string): Promise<void> {
  if (await blockBetween(client, a, b)) throw blockedError();
}

/** Not suspended, no block either way: relation filters, so the database checks per row and pages stay full. */
export function visibleUserWhere(viewerId: string): Prisma.UserWhereInput {
  return {
    suspended: false,
    blocking: { none: { blockedId: viewerId } },
    blockedBy: { none: { blockerId: viewerId } },
  };
}

/**
 * The post to like or comment on: visible (as GET /posts/{code}), not a team post (no likes
 * there), its author not suspended (their content is frozen), and no block between the two.
 */
export async function postToEngage(code: string, userId: string): Promise<PostRecord> {
  const post = await postToDisengage(code, userId);
  if (post.user?.suspended) {
    throw new DomainError("suspended", "The author of this post is suspended.");
  }
  if (post.userId) await assertNoBlock(db(), userId, post.userId);
  return post;
}

/** For taking a like back: visibility and the team rule only, so nothing can leave a like stuck. */
export async function postToDisengage(code: string, userId: string): Promise<PostRecord> {
  const { post } = await readPost(code, { userId, teamId: null });
  if (post.teamId) throw new DomainError("forbidden", "Team posts have no likes or comments.");
  return post;
}

/**
 * Locks two users' rows in id order. Every follow or block change starts here, so on PostgreSQL
 * they queue instead of deadlocking, and a follow and a block racing end as "blocked, no
 * follow". The update touches only `updatedAt`: Prisma has no portable SELECT ... FOR UPDATE.
 */
export async function lockUsers(tx: Pick<Tx, "user">, ids: string[]): Promise<void> {
  for (const id of [...new Set(ids)].sort()) {
    await tx.user.update({ where: { id }, data: { followerCount: { increment: 0 } }, select: { id: true } });
  }
}
