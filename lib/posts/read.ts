/**
 * Loading posts and deciding who may see them (interface.md, visibility rules):
 * private posts, drafts and team posts are visible to their owner (team posts to team
 * members) and, on Relay, to users on the post's access list; everyone else gets 404,
 * never 403. Moderated posts: the owner gets them; others get 403 moderated.
 */
import type { Prisma } from "../db/client";
import { db } from "../db/client";
import { DomainError } from "../errors";

export const postInclude = {
  files: { orderBy: { index: "asc" } },
  user: true,
  access: { include: { user: true }, orderBy: { createdAt: "asc" } },
} as const satisfies Prisma.PostInclude;

export type PostRecord = Prisma.PostGetPayload<{ include: typeof postInclude }>;

/** Who is looking: a personal account, a team key, or nobody (anonymous GET /gifs). */
export interface Viewer {
  userId: string | null;
  /** Set when the request uses a team key. */
  teamId: string | null;
}

export const ANONYMOUS: Viewer = { userId: null, teamId: null };

export async function findPostByCode(code: string): Promise<PostRecord | null> {
  return db().post.findUnique({ where: { code }, include: postInclude });
}

/** True when the viewer owns the post: its author, or for team posts the team's key or a member. */
export async function isOwner(post: { userId: string | null; teamId: string | null }, viewer: Viewer): Promise<boolean> {
  if (post.teamId) {
    if (viewer.teamId) return viewer.teamId === post.teamId;
    if (!viewer.userId) return false;
    const member = await db().teamMember.findUnique({
      where: { teamId_userId: { teamId: post.teamId, userId: viewer.userId } },
      select: { userId: true },
    });
    return !!member;
  }
  return !!viewer.userId && !viewer.teamId && post.userId === viewer.userId;
}

export const isHidden = (post: { privacy: string; draft: boolean; teamId: string | null }) =>
  post.privacy === "private" || post.draft || !!post.teamId;

export interface VisiblePost {
  post: PostRecord;
  owner: boolean;
}

/**
 * The post as the viewer may see it: 404 when it is missing or hidden from them,
 * 403 moderated when it is quarantined and they are not the owner.
 */
export async function readPost(code: string, viewer: Viewer): Promise<VisiblePost> {
  const post = await findPostByCode(code);
  if (!post) throw notFound();
  const owner = await isOwner(post, viewer);
  if (!owner && isHidden(post)) {
    const granted = !post.teamId && !post.draft && !!viewer.userId && !viewer.teamId && post.access.some((a) => a.userId === viewer.userId);
    if (!granted) throw notFound();
  }
  if (post.moderated && !owner) throw new DomainError("moderated", "This post is under moderation.");
  return { post, owner };
}

/** The post for a change by its owner: 404 when hidden, 403 forbidden when not theirs, 403 moderated. */
export async function postForChange(code: string, viewer: Viewer): Promise<PostRecord> {
  const post = await findPostByCode(code);
  if (!post) throw notFound();
  const owner = await isOwner(post, viewer);
  if (!owner) {
    const visible = !isHidden(post) || post.access.some((a) => a.userId === viewer.userId);
    if (!visible) throw notFound();
    throw new DomainError("forbidden", "Only the post's owner can change it.");
  }
  if (post.moderated) throw new DomainError("moderated", "This post is under moderation and cannot be changed.");
  return post;
}

export async function likedBy(postId: string, userId: string | null): Promise<boolean> {
  if (!userId) return false;
  const like = await db().like.findUnique({ where: { postId_userId: { postId, userId } }, select: { userId: true } });
  return !!like;
}

export const notFound = () => new DomainError("not_found", "No such post.");
