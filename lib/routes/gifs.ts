/** GET /gifs: parse the cursor, call lib/gifs, shape the page. No key needed (auth "optional"). */
import type { Principal } from "../types/principal";
import { decodeCursor, pageReply } from "../http/cursor";
import type { Surface } from "../http/route";
import { listGifs } from "../gifs/search";
import { likedAmong } from "../posts/read";
import { searchKey, searchTerms } from "../gifs/terms";
import { postView } from "../presenters/post-views";
import { viewerOf } from "./posts";

const ENDPOINT = "listGifs";

export async function handleGifs(
  principal: Principal | null,
  surface: Surface,
  query: { limit: number; cursor?: string; search?: string },
) {
  const terms = searchTerms(query.search);
  // Cursors are bound to the normalised search: "Cat" and "cat" page the same listing.
  const filters = { search: searchKey(terms) };
  const after = query.cursor ? decodeCursor(ENDPOINT, query.cursor, filters) : undefined;
  const page = await listGifs({ terms, limit: query.limit, after });
  const { userId } = viewerOf(principal, surface);
  const liked = await likedAmong(
    userId,
    page.items.map((p) => p.id),
  );
  return pageReply("posts", ENDPOINT, filters, page, (p) =>
    postView(p, { owner: !!userId && p.userId === userId, liked: liked.has(p.id), surface }),
  );
}
