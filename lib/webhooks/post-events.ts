/**
 * Webhook events from the domain's post events (lib/posts/events.ts), from records the domain
 * already holds; a post is the API's Post object (docs/webhooks.md, "Payloads").
 */
import { postView } from "@/lib/presenters/posts";
import { onPostEvent, type CommentFacts, type ModerationAction, type PostEvent } from "@/lib/posts/events";
import { findPostByCode, type PostRecord } from "@/lib/posts/read";
import { emitWebhookEvent, trackWebhookWork } from "./events";

const ownerView = (post: PostRecord) => postView(post, { owner: true, liked: false, surface: "api" });

export function emitUploaded(post: PostRecord): void {
  if (!post.userId) return;
  emitWebhookEvent({ type: "upload", userId: post.userId, appId: post.appId, data: { post: ownerView(post) } });
}

export function emitDeleted(post: PostRecord): void {
  if (!post.userId) return;
  emitWebhookEvent({
    type: "post.deleted",
    userId: post.userId,
    appId: post.appId,
    data: {
      post: {
        code: post.code,
        title: post.title,
        privacy: post.privacy,
        created_at: post.createdAt.toISOString(),
        file_count: post.fileCount,
      },
    },
  });
}

export function emitModerated(post: PostRecord, action: ModerationAction): void {
  if (!post.userId) return;
  emitWebhookEvent({
    type: "post.moderated",
    userId: post.userId,
    appId: post.appId,
    data: { post: ownerView(post), moderation: { action, moderated: post.moderated, restricted: post.restricted } },
  });
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
      comment: {
        id: comment.id,
        body: comment.body,
        created_at: comment.createdAt.toISOString(),
        author: { id: comment.author.id, username: comment.author.displayUsername },
      },
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

function onEvent(event: PostEvent): void {
  switch (event.type) {
    case "uploaded":
      emitUploaded(event.post);
      // Auto-moderation flagged a file (lib/moderation): the owner hears of the quarantine too.
      if (event.post.moderated) emitModerated(event.post, "moderated");
      return;
    case "deleted":
      return emitDeleted(event.post);
    case "moderated":
      return emitModeratedByCode(event.code, event.action);
    case "commented":
      return emitCommentReceived(event.post, event.comment);
  }
}

export function listenForPostEvents(): void {
  onPostEvent("webhooks", onEvent);
}
