/**
 * Filing reports (docs/reports.md). Checks run in the order that leaks nothing: existence and
 * visibility first (404, as GET /posts/{code}, so a report never confirms a private post),
 * then 403s. A repeated report on a target with an open one adds no row and answers the same.
 */
import { db } from "@/lib/db/client";
import { DomainError, isDomainError } from "@/lib/errors";
import { readPost, type Viewer } from "@/lib/posts/read";
import { findUser } from "@/lib/users/profile";

export type ReportTargetType = "post" | "user" | "comment";

export interface ReportInput {
  reporterId: string;
  /** At most 200 characters (checked by the route); blank is stored as null. */
  reason: string | null | undefined;
  /** Kept for abuse investigations. */
  ip: string;
}

export interface FiledReport {
  id: string;
  created: boolean;
}

type TargetColumns =
  | { targetType: "post"; postId: string }
  | { targetType: "user"; targetUserId: string }
  | { targetType: "comment"; commentId: string };

const SELF = "@me";

/** `ref` is a user id, a username or `@me`. */
export async function reportUser(ref: string, input: ReportInput): Promise<FiledReport> {
  const target = ref === SELF ? { id: input.reporterId, suspended: false } : await findUser(ref);
  if (!target) throw new DomainError("not_found", "No such user.");
  if (target.id === input.reporterId) throw new DomainError("forbidden", "You cannot report yourself.");
  if (target.suspended) throw new DomainError("suspended", "This user is already suspended.");
  // A block either way: the spec refuses user reports between users who blocked each other.
  if (await blockBetween(input.reporterId, target.id)) {
    throw new DomainError("blocked", "You cannot report a user you have blocked or who has blocked you.");
  }
  return fileReport({ targetType: "user", targetUserId: target.id }, input);
}

/** Visibility is GET /posts/{code}'s: a post the reporter was granted through its access list can be reported. */
export async function reportPost(code: string, input: ReportInput): Promise<FiledReport> {
  // readPost answers 404 for missing or hidden posts and 403 `moderated` to non-owners.
  const { post, owner } = await readPost(code, viewerFor(input.reporterId));
  if (owner) throw new DomainError("forbidden", "You cannot report your own post.");
  // Only the author's block counts (the spec's wording): blocking and reporting go together.
  if (post.userId && (await blocks(post.userId, input.reporterId))) {
    throw new DomainError("blocked", "The author of this post has blocked you.");
  }
  return fileReport({ targetType: "post", postId: post.id }, input);
}

/** The comment's post must be visible to the reporter. */
export async function reportComment(commentId: string, input: ReportInput): Promise<FiledReport> {
  const comment = await db().comment.findUnique({
    where: { id: commentId },
    select: { id: true, userId: true, post: { select: { code: true } }, user: { select: { suspended: true } } },
  });
  if (!comment) throw noSuchComment();
  try {
    await readPost(comment.post.code, viewerFor(input.reporterId));
  } catch (error) {
    // A comment on a post the reporter cannot see is as absent as the post itself.
    if (isDomainError(error) && error.type === "not_found") throw noSuchComment();
    throw error;
  }
  if (comment.userId === input.reporterId) throw new DomainError("forbidden", "You cannot report your own comment.");
  if (comment.user.suspended) throw new DomainError("suspended", "The author of this comment is already suspended.");
  // As for posts: the content's author blocking the reporter refuses the report.
  if (await blocks(comment.userId, input.reporterId)) {
    throw new DomainError("blocked", "The author of this comment has blocked you.");
  }
  return fileReport({ targetType: "comment", commentId: comment.id }, input);
}

const viewerFor = (userId: string): Viewer => ({ userId, teamId: null });

const noSuchComment = () => new DomainError("not_found", "No such comment.");

async function blocks(blockerId: string, blockedId: string): Promise<boolean> {
  const row = await db().block.findUnique({
    where: { blockerId_blockedId: { blockerId, blockedId } },
    select: { blockerId: true },
  });
  return row !== null;
}

async function blockBetween(a: string, b: string): Promise<boolean> {
  const row = await db().block.findFirst({
    where: {
      OR: [
        { blockerId: a, blockedId: b },
        { blockerId: b, blockedId: a },
      ],
    },
    select: { blockerId: true },
  });
  return row !== null;
}

/** Two identical requests racing could both insert (no unique index over nullable columns); the rate limit bounds that to a harmless row. */
async function fileReport(target: TargetColumns, input: ReportInput): Promise<FiledReport> {
  const existing = await db().report.findFirst({
    where: { reporterId: input.reporterId, status: "open", ...target },
    select: { id: true },
  });
  if (existing) return { id: existing.id, created: false };
  const reason = input.reason?.trim() || null;
  const report = await db().report.create({
    data: { reporterId: input.reporterId, reason, ip: input.ip, ...target },
    select: { id: true },
  });
  return { id: report.id, created: true };
}
