/** Loading posts and deciding who may see them (docs/uploads.md, "Posts"): hidden is 404, never 403. */
import { deepFreeze } from "@/lib/cache/freeze";
import { VersionedCache } from "@/lib/cache/versioned";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { expireSoon } from "./expiry";
import { isExpired } from "./expiry-rules";
import { findPostByCode, postInclude, type PostRecord } from "./record";

export { findPostByCode, postInclude, type PostRecord };

export interface Viewer {
  userId: string | null;
  teamId: string | null;
  /** False on the API: a private post's access list is a Relay feature (docs/uploads.md, "Posts"). */
  accessList?: boolean;
}

export const ANONYMOUS: Viewer = { userId: null, teamId: null };

/**
 * The read path's look-ups, cached until the next committed write: a link in a busy chat is
 * opened thousands of times. Records are frozen (shared); changes go through findPostByCode.
 */
const posts = new VersionedCache<string, PostRecord | null>({ name: "posts", maxEntries: 5_000, ttlMs: 60_000 });
const memberships = new VersionedCache<string, boolean>({ name: "team_memberships", maxEntries: 10_000, ttlMs: 60_000 });
/**
 * Likers loaded once per post: an entry per viewer made readers of a busy post evict each other
 * (docs/performance.md, "Likers per post"). Past LIKERS_MAX, asked per viewer.
 */
const LIKERS_MAX = 2_000;
const likers = new VersionedCache<string, ReadonlySet<string> | null>({
  name: "likers",
  maxEntries: 5_000,
  ttlMs: 60_000,
  maxWeight: 250_000,
  weigh: (set) => 1 + (set?.size ?? 0),
});
const likes = new VersionedCache<string, boolean>({ name: "likes", maxEntries: 20_000, ttlMs: 60_000 });

async function loadLikers(postId: string): Promise<ReadonlySet<string> | null> {
  const rows = await db().like.findMany({ where: { postId }, select: { userId: true }, take: LIKERS_MAX + 1 });
  return rows.length > LIKERS_MAX ? null : new Set(rows.map((row) => row.userId));
}

const cachedPostByCode = (code: string): Promise<PostRecord | null> => posts.get(code, async () => deepFreeze(await findPostByCode(code)));

export async function isOwner(post: { userId: string | null; teamId: string | null }, viewer: Viewer): Promise<boolean> {
  const known = peekOwner(post, viewer);
  if (known !== undefined) return known;
  const teamId = post.teamId as string;
  const userId = viewer.userId as string;
  return memberships.get(`${teamId}:${userId}`, async () => {
    const member = await db().teamMember.findUnique({ where: { teamId_userId: { teamId, userId } }, select: { userId: true } });
    return !!member;
  });
}

/** isOwner without I/O; undefined when only team membership (not cached) can tell. */
function peekOwner(post: { userId: string | null; teamId: string | null }, viewer: Viewer): boolean | undefined {
  if (post.teamId) {
    if (viewer.teamId) return viewer.teamId === post.teamId;
    if (!viewer.userId) return false;
    return memberships.peek(`${post.teamId}:${viewer.userId}`);
  }
  return !!viewer.userId && !viewer.teamId && post.userId === viewer.userId;
}

export const isHidden = (post: { privacy: string; draft: boolean; teamId: string | null }) =>
  post.privacy === "private" || post.draft || !!post.teamId;

export interface VisiblePost {
  post: PostRecord;
  owner: boolean;
}

export async function readPost(code: string, viewer: Viewer): Promise<VisiblePost> {
  const post = await cachedPostByCode(code);
  if (!post) throw notFound();
  if (isExpired(post)) {
    // Deleted at once rather than at the next sweep (docs/expiry.md); the reader never waits.
    expireSoon(code);
    throw notFound();
  }
  return visibleTo(post, viewer, await isOwner(post, viewer));
}

/** A post whose address (QR code) the viewer may be handed: a password-protected post is its owner's alone. */
export async function readPostAddress(code: string, viewer: Viewer): Promise<PostRecord> {
  const { post, owner } = await readPost(code, viewer);
  if (!owner && post.passwordHash !== null) throw notFound();
  return post;
}

/** readPost from the caches alone; undefined when not cached or an error must be reported. */
export function peekReadablePost(code: string, viewer: Viewer): VisiblePost | undefined {
  const post = posts.peek(code);
  if (!post || isExpired(post)) return undefined;
  const owner = peekOwner(post, viewer);
  if (owner === undefined) return undefined;
  try {
    return visibleTo(post, viewer, owner);
  } catch {
    return undefined;
  }
}

const isOnAccessList = (post: PostRecord, viewer: Viewer): boolean =>
  viewer.accessList !== false && !!viewer.userId && !viewer.teamId && post.access.some((a) => a.userId === viewer.userId);

function visibleTo(post: PostRecord, viewer: Viewer, owner: boolean): VisiblePost {
  if (!owner && isHidden(post)) {
    const granted = !post.teamId && !post.draft && isOnAccessList(post, viewer);
    if (!granted) throw notFound();
  }
  if (post.moderated && !owner) throw new DomainError("moderated", "This post is under moderation.");
  return { post, owner };
}

/** The post for a change by its owner: 404 hidden, 403 forbidden or moderated. */
export async function postForChange(code: string, viewer: Viewer): Promise<PostRecord> {
  const post = await findPostByCode(code);
  // An expired post cannot be brought back by an edit (docs/expiry.md): gone is gone.
  if (!post || isExpired(post)) throw notFound();
  const owner = await isOwner(post, viewer);
  if (!owner) {
    const visible = !isHidden(post) || isOnAccessList(post, viewer);
    if (!visible) throw notFound();
    throw new DomainError("forbidden", "Only the post's owner can change it.");
  }
  if (post.moderated) throw new DomainError("moderated", "This post is under moderation and cannot be changed.");
  return post;
}

export async function likedBy(postId: string, userId: string | null): Promise<boolean> {
  const known = peekLikedBy(postId, userId);
  if (known !== undefined) return known;
  if (!userId) return false;
  const set = await likers.get(postId, () => loadLikers(postId));
  if (set) return set.has(userId);
  return likes.get(`${postId}:${userId}`, async () => {
    const like = await db().like.findUnique({ where: { postId_userId: { postId, userId } }, select: { userId: true } });
    return !!like;
  });
}

export async function likedAmong(userId: string | null, postIds: readonly string[]): Promise<Set<string>> {
  if (!userId || !postIds.length) return new Set();
  const likes = await db().like.findMany({ where: { userId, postId: { in: [...postIds] } }, select: { postId: true } });
  return new Set(likes.map((l) => l.postId));
}

export function peekLikedBy(postId: string, userId: string | null): boolean | undefined {
  if (!userId) return false;
  const set = likers.peek(postId);
  if (set === undefined) return undefined;
  return set ? set.has(userId) : likes.peek(`${postId}:${userId}`);
}

export const notFound = () => new DomainError("not_found", "No such post.");
