/**
 * What the share target's result page says of the post it made (docs/share-target.md): its
 * privacy, read as its owner, so a private upload is not offered as if it were shareable.
 */
import { isShareCode } from "@/lib/posts/codes";
import { readPost } from "@/lib/posts/read";
import type { Privacy } from "@/lib/posts/privacy";

/** The privacy of the viewer's own post at this share URL, or null (not a share URL, not theirs). */
export async function ownPostPrivacy(viewerId: string, shareUrl: string): Promise<Privacy | null> {
  const code = new URL(shareUrl).pathname.split("/").filter(Boolean).pop() ?? "";
  if (!isShareCode(code)) return null;
  try {
    const { post, owner } = await readPost(code, { userId: viewerId, teamId: null });
    return owner ? (post.privacy as Privacy) : null;
  } catch {
    return null;
  }
}
