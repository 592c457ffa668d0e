/**
 * GET /discover: at most 50 public, non-moderated posts, recent and popular mixed,
 * ranked by the hot score of score.ts, each counting a view.
 *
 * Speed at millions of posts: two bounded reads off indexes, then work on at most 400
 * small rows, whatever the size of the table:
 *   1. "recent": the newest 200 listable posts, Post(privacy, createdAt, id);
 *   2. "hot": the 200 with the highest stored score, Post(privacy, discoverScore).
 * Every post that ever had a like or a comment has its score stored; one that never had
 * any scores by its age alone, so the newest of those are exactly the best of them. The
 * union therefore holds the true top 200 by score, and the top 50 of it (after the
 * storage check below) is the answer, not an approximation.
 *
 * Listable: public, not moderated, restricted, a draft or a team post, not expired, with
 * no view limit and no password (listedPostWhere); an author who is
 * not suspended and has no block with the caller either way (checked in the same query,
 * so hidden posts never take a candidate's place). Posts whose author was deleted are
 * left out. A post whose primary file is missing from storage is skipped silently.
 */
import type { Prisma } from "@/lib/db/client";
import { db } from "@/lib/db/client";
import { listedPostWhere } from "@/lib/posts/list";
import { likedAmong, postInclude, type PostRecord } from "@/lib/posts/read";
import { storage } from "@/lib/storage";
import { visibleUserWhere } from "./relations";
import { discoverScore } from "./score";
import { countViews } from "@/lib/posts/views";

/** Items per reply (docs/relay-social.md, "Discover"). */
export const DISCOVER_LIMIT = 50;
/** Candidates read from each index. */
export const CANDIDATES_PER_SOURCE = 200;
/** Ranked candidates loaded and checked against storage at a time. */
const CHUNK = 60;

export interface DiscoverItem {
  /** `viewCount` includes the view this request counted. */
  post: PostRecord;
  liked: boolean;
}

function listableWhere(viewerId: string): Prisma.PostWhereInput {
  return { ...listedPostWhere(), restricted: false, user: { is: visibleUserWhere(viewerId) } };
}

async function primaryFileStored(post: PostRecord): Promise<boolean> {
  const file = post.files[0];
  return !!file && (await storage().stat(file.storageKey)) !== null;
}

/** The listable candidates, best first. */
async function rankedCandidates(where: Prisma.PostWhereInput): Promise<string[]> {
  const select = { id: true, likeCount: true, commentCount: true, createdAt: true } as const;
  const [recent, hot] = await Promise.all([
    db().post.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: CANDIDATES_PER_SOURCE, select }),
    db().post.findMany({
      where: { ...where, discoverScore: { gt: 0 } },
      orderBy: { discoverScore: "desc" },
      take: CANDIDATES_PER_SOURCE,
      select,
    }),
  ]);
  const unique = new Map([...recent, ...hot].map((p) => [p.id, p]));
  return [...unique.values()]
    .map((p) => ({ id: p.id, score: discoverScore(p) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : -1))
    .map((p) => p.id);
}

export async function discoverPosts(viewerId: string, ip: string): Promise<DiscoverItem[]> {
  const where = listableWhere(viewerId);
  const ranked = await rankedCandidates(where);
  const chosen: PostRecord[] = [];
  for (let i = 0; i < ranked.length && chosen.length < DISCOVER_LIMIT; i += CHUNK) {
    const ids = ranked.slice(i, i + CHUNK);
    const rows = await db().post.findMany({ where: { ...where, id: { in: ids } }, include: postInclude });
    const byId = new Map(rows.map((r) => [r.id, r]));
    const ordered = ids.flatMap((id) => byId.get(id) ?? []);
    const stored = await Promise.all(ordered.map(primaryFileStored));
    for (const [j, post] of ordered.entries()) {
      if (stored[j] && chosen.length < DISCOVER_LIMIT) chosen.push(post);
    }
  }
  const [counted, liked] = await Promise.all([
    countViews(chosen, ip),
    likedAmong(
      viewerId,
      chosen.map((p) => p.id),
    ),
  ]);
  return chosen.map((post) => ({
    post: counted.has(post.id) ? { ...post, viewCount: post.viewCount + 1 } : post,
    liked: liked.has(post.id),
  }));
}
