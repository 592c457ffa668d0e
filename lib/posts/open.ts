/**
 * Opening a post for a reader: the one place that decides what GET /posts/{code} and the share
 * page give (docs/share-passwords.md, docs/expiry.md, docs/relay-social.md, "Views"); robots
 * and prefetches spend no view. The surfaces only present the result.
 */
import { activeLinkDomain } from "@/lib/domains/link-domain-proof";
import type { DomainError } from "@/lib/errors";
import { isDomainError } from "@/lib/errors";
import { isGated } from "./expiry-rules";
import { likedBy, notFound, peekLikedBy, peekReadablePost, readPost, type PostRecord, type Viewer } from "./read";
import { countLimitedView, countView } from "./views";

export interface Reader {
  viewer: Viewer;
  /** The share page: whether this visitor's unlock opens the post. Absent (API, Relay): as if private. */
  unlocks?: (code: string, passwordHash: string) => boolean;
  /** False for robots and prefetches: a gated post is held (no media, no view spent). Default true. */
  person?: boolean;
  viewFrom?: string;
  /** The request came in on this custom link domain: the post must be its owner's (else 404). */
  linkDomain?: string | null;
  /** Called once the post is visible and on the link domain, before any gate (the robots' page cache notes the expiry). */
  onRead?: (post: PostRecord) => void;
}

export interface OpenedPost {
  kind: "post";
  post: PostRecord;
  owner: boolean;
  liked: boolean;
}

export type Refusal =
  | { kind: "not_found"; error: DomainError }
  | { kind: "moderated"; error: DomainError }
  | { kind: "password"; code: string }
  | { kind: "held" };

const missing = (): Refusal => ({ kind: "not_found", error: notFound() });

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

/** openPost from the read caches without an await, for an API read; undefined sends the caller to openPost. */
export function peekOpenPost(code: string, viewer: Viewer): OpenedPost | undefined {
  const visible = peekReadablePost(code, viewer);
  // A view-limited or password-protected post someone else opens is never a plain cache hit.
  if (!visible || (!visible.owner && isGated(visible.post))) return undefined;
  const liked = peekLikedBy(visible.post.id, viewer.userId);
  if (liked === undefined) return undefined;
  return { kind: "post", post: visible.post, owner: visible.owner, liked };
}

export const refusalError = (refusal: Refusal): DomainError => ("error" in refusal ? refusal.error : notFound());
