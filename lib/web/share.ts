/** A share page's post, shaped as GET /posts/{code} (docs/share-pages.md, "`/p/{code}`"). */
import { isDependencyUnavailable } from "@/lib/faults/classify";
import { cache } from "react";
import type { z } from "zod";
import { openPost } from "@/lib/posts/open";
import type { PostRecord } from "@/lib/posts/read";
import { postView } from "@/lib/presenters/posts";
import type { Post } from "@/lib/presenters/posts";
import { countViews } from "@/lib/posts/views";
import { notePageExpiry } from "./page-expiry";
import { verifyUnlockToken } from "./share-unlock";
import { isRobot } from "./robots";

export type PostJson = z.infer<typeof Post>;

export type ShareResult =
  | { kind: "post"; post: PostJson; owner: boolean; record: PostRecord }
  | { kind: "moderated" }
  | { kind: "not_found" }
  /** Password-protected and not unlocked by this visitor: the page shows the form, no media. */
  | { kind: "password"; code: string }
  /** A view-limited or password-protected post asked for by a robot or a prefetch: no media, no view spent. */
  | { kind: "held" };

/**
 * The rules are openPost's; on a link domain the post must be the domain owner's, so one user's
 * domain cannot show another's posts. A view-limited post spends one view per request (React's cache).
 */
export const loadSharePost = cache(loadShare);

async function loadShare(
  code: string,
  viewerId: string | null,
  linkDomain: string | null,
  person = true,
  unlock: string | null = null,
): Promise<ShareResult> {
  const opened = await openPost(code, {
    viewer: { userId: viewerId, teamId: null },
    linkDomain,
    person,
    unlocks: (postCode, passwordHash) => verifyUnlockToken(postCode, passwordHash, unlock),
    onRead: (post) => {
      if (post.expiresAt) notePageExpiry(post.code, post.expiresAt.getTime());
    },
  });
  if (opened.kind === "password") return opened;
  if (opened.kind !== "post") return { kind: opened.kind };
  const { post, owner, liked } = opened;
  return { kind: "post", post: postView(post, { owner, liked, surface: "relay" }), owner, record: post };
}

/** Counts a person's view by Relay's rule; not awaited, so bookkeeping never delays or fails the page. */
export function countShareView(record: PostRecord, ip: string, userAgent: string | null, prefetch: boolean): void {
  if (prefetch || isRobot(userAgent)) return;
  countViews([record], ip).catch((error: unknown) => {
    // The database away is logged once per outage (docs/faults.md).
    if (!isDependencyUnavailable(error)) console.error("share page view not counted", error);
  });
}

export function primaryKind(post: PostJson): "image" | "video" | "other" {
  const mime = post.files[0]?.mime_type ?? "";
  if (mime.startsWith("video/")) return "video";
  if (mime.startsWith("image/")) return "image";
  return "other";
}
