/**
 * The events domain code emits about posts, built from the records it already holds (no
 * extra reads). A post appears as the API's Post object in the owner's view, so a
 * receiver parses it like a GET /posts/{code} reply (docs/webhooks.md, "Payloads").
 */
import { postView } from "../routes/post-views";
import { findPostByCode, type PostRecord } from "../posts/read";
import { emitWebhookEvent, trackWebhookWork } from "./events";

const ownerView = (post: PostRecord) => postView(post, { owner: true, liked: false, surface: "api" });

/** After a post was written by an upload. */
export function emitUploaded(post: PostRecord): void {
  if (!post.userId) return;
  emitWebhookEvent({ type: "upload", userId: post.userId, appId: post.appId, data: { post: ownerView(post) } });
}

/** After a post was deleted (by its owner, the last file's removal, or an operator). */
export function emitDeleted(post: PostRecord): void {
  if (!post.userId) return;
  emitWebhookEvent({
    type: "post.deleted",
    userId: post.userId,
    appId: post.appId,
    data: { post: { code: post.code, title: post.title, privacy: post.privacy, created_at: post.createdAt.toISOString(), file_count: post.fileCount } },
  });
}

export type ModerationAction = "moderated" | "released" | "restricted";

/** After an operator (or auto-moderation at upload) changed a post's moderation state. */
export function emitModerated(post: PostRecord, action: ModerationAction): void {
  if (!post.userId) return;
  emitWebhookEvent({
    type: "post.moderated",
    userId: post.userId,
    appId: post.appId,
    data: { post: ownerView(post), moderation: { action, moderated: post.moderated, restricted: post.restricted } },
  });
}

export interface CommentFacts {
  id: string;
  body: string;
  createdAt: Date;
  author: { id: string; displayUsername: string };
}

/** After someone else commented on the post (one's own comments are not "received"). */
export function emitCommentReceived(post: PostRecord, comment: CommentFacts): void {
  if (!post.userId || post.userId === comment.author.id) return;
  emitWebhookEvent({
    type: "comment.received",
    userId: post.userId,
    appId: post.appId,
    data: {
      post: ownerView(post),
      comment: { id: comment.id, body: comment.body, created_at: comment.createdAt.toISOString(), author: { id: comment.author.id, username: comment.author.displayUsername } },
    },
  });
}

/** emitModerated for callers that hold only the code (the operator's moderation verbs): read, then emit, detached. */
export function emitModeratedByCode(code: string, action: ModerationAction): void {
  trackWebhookWork(
    findPostByCode(code)
      .then((post) => post && emitModerated(post, action))
      .catch((error: unknown) => console.error(`[webhooks] could not read post ${code} for post.moderated: ${String(error)}`)),
  );
}
