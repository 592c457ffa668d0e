/** The replies of the social area (lib/routes/table/social.ts; docs/relay-social.md) and their views. */
import { z } from "zod";
import type { PostRecord } from "@/lib/posts/read";
import type { BlockItem } from "@/lib/social/blocks";
import type { CommentItem } from "@/lib/social/comments";
import type { FollowState } from "@/lib/social/follows";
import type { LikeState } from "@/lib/social/likes";
import type { NotificationItem } from "@/lib/social/notifications";
import { fileView } from "@/lib/presenters/posts";
import { paged } from "@/lib/presenters/shared";
import { UserRef, userRef } from "@/lib/presenters/users";

export const FollowReply = z.object({ following: z.boolean(), follower_count: z.number().int() });
export const BlockReply = z.object({ blocking: z.boolean() });
export const LikeReply = z.object({ liked: z.boolean(), like_count: z.number().int() });
export const Comment = z
  .object({ id: z.string(), body: z.string(), user: UserRef, like_count: z.number().int(), liked: z.boolean(), created_at: z.string() })
  .meta({ id: "Comment" });
export const Notification = z
  .object({
    id: z.string(),
    kind: z.string(),
    actors: z.array(UserRef),
    actor_count: z.number().int().describe("Distinct actors in the entry (`actors` lists at most 10)"),
    read: z.boolean(),
    post_code: z.string().nullable(),
    post_thumbnail_url: z.url().nullable(),
    created_at: z.string(),
  })
  .meta({ id: "Notification" });

export const UserPage = paged("users", UserRef);
export const BlockPage = paged("blocks", z.object({ user: UserRef, created_at: z.string() }));
export const CommentList = z.object({ comments: z.array(Comment) });
export const CommentReply = z.object({ comment: Comment });
export const NotificationPage = paged("notifications", Notification);
export const UnreadCount = z.object({ unread_count: z.number().int() });

export const likeView = (state: LikeState): z.infer<typeof LikeReply> => ({ liked: state.liked, like_count: state.likeCount });
export const followView = (state: FollowState): z.infer<typeof FollowReply> => ({
  following: state.following,
  follower_count: state.followerCount,
});
export const blockView = (b: BlockItem) => ({ user: userRef(b.user), created_at: b.createdAt.toISOString() });

export function commentView(comment: CommentItem): z.infer<typeof Comment> {
  return {
    id: comment.id,
    body: comment.body,
    user: userRef(comment.user),
    like_count: comment.likeCount,
    liked: comment.liked,
    created_at: comment.createdAt.toISOString(),
  };
}

/** The primary file's thumbnail, or the file itself when it is an image (signed for private posts). */
function thumbnailUrl(post: PostRecord | null): string | null {
  const file = post?.files[0];
  if (!post || !file) return null;
  const view = fileView(post, file, Date.now());
  return view.thumbnail_url ?? (file.mimeType.startsWith("image/") ? view.url : null);
}

export function notificationView(n: NotificationItem): z.infer<typeof Notification> {
  return {
    id: n.id,
    kind: n.kind,
    actors: n.actors.map(userRef),
    actor_count: n.count,
    read: n.read,
    post_code: n.postCode,
    post_thumbnail_url: thumbnailUrl(n.post),
    created_at: n.updatedAt.toISOString(),
  };
}
