/**
 * The data of a share page (/p/{code}) and of its unfurl tags: one post read per request
 * (cached with React's `cache`, so generateMetadata and the page share it), shaped with
 * the same builder as GET /posts/{code} so URLs, signing and author references match the
 * API exactly. Visibility is readPost's (docs/share-pages.md, "`/p/{code}`"): hidden posts
 * are 404 for all but the owner and the access list; moderated posts are a notice for all
 * but the owner.
 */
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
 * The post behind `code` as `viewer` may see it. `linkDomain` is set when the request
 * came in on a custom link domain (proxy.ts): then the post must belong to that domain's
 * owner, so one user's domain cannot show another user's posts. `person` is false for
 * robots and prefetches; `unlock` is the post's unlock cookie (lib/web/share-unlock.ts).
 *
 * For someone other than the owner: a password-protected post needs a valid unlock
 * (docs/share-passwords.md); a view-limited one spends a view here, once per request
 * (React's cache), and is 404 once none is left (docs/expiry.md). Robots get neither.
 * The rules are openPost's (lib/posts/open.ts); this shapes its answer for the page.
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

/**
 * A person opening a share page counts a view, by the same rule and counter as a Relay
 * read (public, non-moderated, at most 3 per address per post per hour). Not awaited by
 * the page: bookkeeping must not delay or fail it.
 */
export function countShareView(record: PostRecord, ip: string, userAgent: string | null, prefetch: boolean): void {
  if (prefetch || isRobot(userAgent)) return;
  countViews([record], ip).catch((error: unknown) => {
    // The database away is logged once per outage (docs/faults.md).
    if (!isDependencyUnavailable(error)) console.error("share page view not counted", error);
  });
}

/** The kind of media a post shows first, which decides the page layout and the unfurl card. */
export function primaryKind(post: PostJson): "image" | "video" | "other" {
  const mime = post.files[0]?.mime_type ?? "";
  if (mime.startsWith("video/")) return "video";
  if (mime.startsWith("image/")) return "image";
  return "other";
}
