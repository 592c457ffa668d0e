/**
 * GET /discover (docs/relay-social.md, "Discover"): two bounded index reads, the newest 200
 * and the 200 with the highest stored score. A post never liked or commented scores by its
 * age alone, so the union holds the true top 200 and the answer is exact, not an
 * approximation, at any table size. Blocks and suspensions are checked in the same query, so
 * hidden posts never take a candidate's place.
 */
import type { Prisma } from "@/lib/db/client";
import { db } from "@/lib/db/client";
import { listedPostWhere } from "@/lib/posts/list";
import { likedAmong, postInclude, type PostRecord } from "@/lib/posts/read";
import { storage } from "@/lib/storage";
import { visibleUserWhere } from "./relations";
import { discoverScore } from "./score";
import { countViews } from "@/lib/posts/views";

export const DISCOVER_LIMIT = 50;
export const CANDIDATES_PER_SOURCE = 200;
const CHUNK = 60;

export interface DiscoverItem {
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
