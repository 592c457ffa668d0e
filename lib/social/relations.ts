/**
 * What every social verb asks first: who is the other user, is there a block between the
 * two, may the caller touch this post. Plain checks and `where` fragments; the verbs live
 * in the neighbouring files (docs/relay-social.md).
 */
import type { Prisma, Tx } from "@/lib/db/client";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { readPost, type PostRecord } from "@/lib/posts/read";
import { findUser, type UserRecord } from "@/lib/users/profile";

/** The caller's own account in a path: `@me`. */
export const ME = "@me";

/** `{id}` of a user path: `@me`, an id or a username; 404 when nobody matches. */
export async function resolveUser(ref: string, callerId: string): Promise<UserRecord> {
  const user = await findUser(ref === ME ? callerId : ref);
  if (!user) throw new DomainError("not_found", "No such user.");
  return user;
}

/** True when either user blocks the other. */
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

/** 403 blocked when either user blocks the other. */
export async function assertNoBlock(client: Pick<Tx, "block">, a: string, b: string): Promise<void> {
  if (await blockBetween(client, a, b)) throw blockedError();
}

/**
 * Users a viewer may see in lists, comments and discover: not suspended, and no block
 * either way. Written as relation filters, so the database checks it per row (NOT EXISTS
 * on the Block primary key and its blockedId index) and pages stay full.
 */
export function visibleUserWhere(viewerId: string): Prisma.UserWhereInput {
  return {
    suspended: false,
    blocking: { none: { blockedId: viewerId } },
    blockedBy: { none: { blockerId: viewerId } },
  };
}

/**
 * The post a user wants to like or comment on, or whose comment they want to like:
 * visible to them (404 hidden, 403 moderated, as GET /posts/{code}), not a team post
 * (team posts have no likes or comments: `like_count` is null there), its author not
 * suspended (their content is frozen, as their profile is), and no block between the two.
 */
export async function postToEngage(code: string, userId: string): Promise<PostRecord> {
  const post = await postToDisengage(code, userId);
  if (post.user?.suspended) {
    throw new DomainError("suspended", "The author of this post is suspended.");
  }
  if (post.userId) await assertNoBlock(db(), userId, post.userId);
  return post;
}

/**
 * The post for taking a like back: visibility and the team rule only. Removing one's own
 * like is allowed across blocks and suspensions, so nothing can leave a like stuck.
 */
export async function postToDisengage(code: string, userId: string): Promise<PostRecord> {
  const { post } = await readPost(code, { userId, teamId: null });
  if (post.teamId) throw new DomainError("forbidden", "Team posts have no likes or comments.");
  return post;
}

/**
 * Takes the row locks of two users in id order. Every transaction that changes a follow
 * or a block between two users starts here, so on PostgreSQL they queue instead of
 * deadlocking, and each one sees the others' committed rows: a follow and a block racing
 * each other end as "blocked, no follow" whichever commits first. (SQLite serialises
 * writers anyway.) The update changes nothing but `updatedAt`: Prisma has no portable
 * SELECT ... FOR UPDATE, and an UPDATE takes the same row lock.
 */
export async function lockUsers(tx: Pick<Tx, "user">, ids: string[]): Promise<void> {
  for (const id of [...new Set(ids)].sort()) {
    await tx.user.update({ where: { id }, data: { followerCount: { increment: 0 } }, select: { id: true } });
  }
}
