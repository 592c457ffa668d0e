/**
 * Opening a post for a reader: the one place that decides what a reader of GET
 * /posts/{code} (API, Relay) and of the share page (/p/{code}) gets. After readPost's
 * rules (hidden: 404; moderated: 403 for all but the owner), for anyone but the owner:
 * a share-page password keeps the post from the API and Relay (as if private) and needs
 * an unlock on the web (docs/share-passwords.md); a view-limited post spends one view per
 * opening and is 404 once none is left (docs/expiry.md); robots and prefetches get
 * neither. A Relay read counts a view (docs/relay-social.md, "Views"). Then the reader's
 * like. The surfaces only present the result.
 */
import { activeLinkDomain } from "@/lib/users/link-domain-proof";
import type { DomainError } from "@/lib/errors";
import { isDomainError } from "@/lib/errors";
import { isGated } from "./expiry-rules";
import { likedBy, notFound, peekLikedBy, peekReadablePost, readPost, type PostRecord, type Viewer } from "./read";
import { countLimitedView, countView } from "./views";

/** Who opens the post, and how (the surface's part of the rules). */
export interface Reader {
  viewer: Viewer;
  /**
   * The web share page: whether this visitor's unlock opens a password-protected post.
   * Absent (API, Relay): such a post is as if private to all but its owner.
   */
  unlocks?: (code: string, passwordHash: string) => boolean;
  /** False for robots and prefetches: a gated post is held (no media, no view spent). Default true. */
  person?: boolean;
  /** Relay: the client address a counted view is counted for. Absent: no counted view. */
  viewFrom?: string;
  /** The request came in on this custom link domain: the post must be its owner's (else 404). */
  linkDomain?: string | null;
  /**
   * Called with the post as read, once it is visible and on the link domain, before any
   * gate: the share page notes its expiry for the robots' page cache.
   */
  onRead?: (post: PostRecord) => void;
}

/** The post as the reader sees it: `post` carries a spent or counted view in its counts. */
export interface OpenedPost {
  kind: "post";
  post: PostRecord;
  owner: boolean;
  liked: boolean;
}

export type Refusal =
  /** Missing, hidden, expired, not on the link domain, or no view left. */
  | { kind: "not_found"; error: DomainError }
  /** Under moderation and not the reader's. */
  | { kind: "moderated"; error: DomainError }
  /** Password-protected and not unlocked (only for readers with `unlocks`). */
  | { kind: "password"; code: string }
  /** Gated and asked for by a robot or a prefetch (only for `person: false`). */
  | { kind: "held" };

const missing = (): Refusal => ({ kind: "not_found", error: notFound() });

/** The post behind `code` as `reader` may open it, or why not. Spends or counts the view it takes. */
export async function openPost(code: string, reader: Reader): Promise<OpenedPost | Refusal> {
  let visible: Awaited<ReturnType<typeof readPost>>;
  try {
    visible = await readPost(code, reader.viewer);
  } catch (error) {
    if (isDomainError(error) && (error.type === "not_found" || error.type === "moderated")) return { kind: error.type, error };
    throw error;
  }
  const { post, owner } = visible;
  // Only a proven link domain serves its owner's posts (docs/link-domains.md).
  if (reader.linkDomain && activeLinkDomain(post.user) !== reader.linkDomain) return missing();
  reader.onRead?.(post);
  let shown: PostRecord = post;
  if (!owner && isGated(post)) {
    if (reader.person === false) return { kind: "held" };
    if (post.passwordHash !== null && !reader.unlocks?.(post.code, post.passwordHash)) {
      return reader.unlocks ? { kind: "password", code: post.code } : missing();
    }
    if (post.maxViews !== null) {
      // Every opening by someone else spends one view, on every surface; none left: 404.
      const state = await countLimitedView(post.id);
      if (!state) return missing();
      shown = { ...post, ...state };
    }
  } else if (reader.viewFrom !== undefined && (await countView(post, reader.viewFrom))) {
    shown = { ...post, viewCount: post.viewCount + 1 };
  }
  return { kind: "post", post: shown, owner, liked: await likedBy(post.id, reader.viewer.userId) };
}

/**
 * openPost from the read caches alone, without an await, for a reader who spends and
 * counts nothing (an API read): the opened post, or undefined when the caches cannot
 * tell or the answer is a refusal or would spend a view (the caller then runs openPost).
 */
export function peekOpenPost(code: string, viewer: Viewer): OpenedPost | undefined {
  const visible = peekReadablePost(code, viewer);
  // A view-limited or password-protected post someone else opens is never a plain cache hit.
  if (!visible || (!visible.owner && isGated(visible.post))) return undefined;
  const liked = peekLikedBy(visible.post.id, viewer.userId);
  if (liked === undefined) return undefined;
  return { kind: "post", post: visible.post, owner: visible.owner, liked };
}

/** A refusal as the API and Relay answer it: the error, 404 for what only the web tells apart. */
export const refusalError = (refusal: Refusal): DomainError => ("error" in refusal ? refusal.error : notFound());
