/** Discover and the GIF search for the web pages, as Relay's GET /discover and GET /gifs. */
import { isDomainError } from "@/lib/errors";
import { decodeCursor, encodeCursor } from "@/lib/http/cursor";
import { listGifs } from "@/lib/gifs/search";
import { likedAmong } from "@/lib/posts/read";
import { searchKey, searchTerms } from "@/lib/gifs/terms";
import { postView } from "@/lib/presenters/posts";
import { discoverPosts } from "@/lib/social/discover";
import type { PostJson } from "./share";

/** Same endpoint name as the API's, so a cursor from either works on both. */
const GIFS_ENDPOINT = "listGifs";
export const GIF_PAGE_SIZE = 24;

/** Up to 50 posts, ranked as on Relay; each counts a view for `ip` (as on Relay). */
export async function discoverFeed(viewerId: string | null, ip: string): Promise<PostJson[]> {
  // Nobody signed in: no blocks to apply; "" matches no user id.
  const items = await discoverPosts(viewerId ?? "", ip);
  return items.map(({ post, liked }) =>
    postView(post, { owner: !!viewerId && post.userId === viewerId, liked, surface: "relay", primaryOnly: true }),
  );
}

export interface GifPage {
  posts: PostJson[];
  nextCursor: string | null;
  /** A cursor that was not ours or belonged to another search: the first page was shown. */
  cursorIgnored: boolean;
}

export async function gifPage(viewerId: string | null, search: string | undefined, cursor: string | undefined): Promise<GifPage> {
  const terms = searchTerms(search?.slice(0, 300));
  const filters = { search: searchKey(terms) };
  let after;
  let cursorIgnored = false;
  if (cursor) {
    try {
      after = decodeCursor(GIFS_ENDPOINT, cursor, filters);
    } catch (error) {
      if (!isDomainError(error)) throw error;
      cursorIgnored = true;
    }
  }
  const page = await listGifs({ terms, limit: GIF_PAGE_SIZE, after });
  const liked = await likedAmong(
    viewerId,
    page.items.map((p) => p.id),
  );
  return {
    posts: page.items.map((p) => postView(p, { owner: !!viewerId && p.userId === viewerId, liked: liked.has(p.id), surface: "relay" })),
    nextCursor: page.next ? encodeCursor(GIFS_ENDPOINT, page.next, filters) : null,
    cursorIgnored,
  };
}
