/**
 * GET /gifs: public posts whose first file is a GIF, newest first, optionally narrowed by
 * word-prefix search (docs/gifs.md).
 *
 * Each page reads at most `scanBudget(limit)` candidates from a newest-first stream that
 * contains every answer (lib/gifs/driver.ts) and keeps those that pass the listing rules
 * and the search words. The work per request is therefore bounded whatever the table
 * size or the search; the price is that a page can hold fewer than `limit` posts while
 * `has_more` is true, which the spec allows: the cursor then points at the last candidate
 * read, so the next page goes on from there and nothing is skipped or repeated.
 */
import { db } from "@/lib/db/client";
import type { Page, Position } from "@/lib/db/paging";
import { postInclude, type PostRecord } from "@/lib/posts/read";
import { chooseDriver, type Driver } from "./driver";
import { gifPostStreamSql, scan, wordStreamSql, type Candidate } from "./queries";
import type { SearchTerm } from "./terms";

export interface GifQuery {
  terms: readonly SearchTerm[];
  limit: number;
  /** Position of the previous page's cursor. */
  after?: Position;
}

/** Candidates read per page: a few pages' worth, so sparse matches still fill pages, but bounded. */
export const scanBudget = (limit: number): number => Math.max(120, 4 * limit + 1);

const positionOf = (c: Candidate): Position => ({ t: c.t, id: c.id });

/** The next `take` rows of the driver's stream after `after`, each with its verdict. */
export function readCandidates(
  driver: Exclude<Driver, { kind: "empty" }>,
  after: Position | undefined,
  take: number,
): Promise<Candidate[]> {
  const stream = driver.kind === "words" ? wordStreamSql(driver.words, after, take) : gifPostStreamSql(after, take);
  return scan(stream, driver.filters);
}

/** One page of post ids, newest first. */
export async function searchGifIds(query: GifQuery): Promise<Page<string>> {
  const driver = await chooseDriver(query.terms);
  if (driver.kind === "empty") return { items: [], hasMore: false, next: null };
  const budget = scanBudget(query.limit);
  const candidates = await readCandidates(driver, query.after, budget);
  const matches = candidates.filter((c) => c.listed);
  if (matches.length > query.limit) {
    const items = matches.slice(0, query.limit);
    return { items: items.map((c) => c.id), hasMore: true, next: positionOf(items[items.length - 1]) };
  }
  // A full slice may be followed by more candidates: go on after the last one read.
  const more = candidates.length === budget;
  return { items: matches.map((c) => c.id), hasMore: more, next: more ? positionOf(candidates[candidates.length - 1]) : null };
}

/** One page of posts, ready to render. */
export async function listGifs(query: GifQuery): Promise<Page<PostRecord>> {
  const page = await searchGifIds(query);
  if (!page.items.length) return { ...page, items: [] };
  const rows = await db().post.findMany({ where: { id: { in: page.items } }, include: postInclude });
  const byId = new Map(rows.map((r) => [r.id, r]));
  // A post deleted between the two reads is simply left out.
  return { ...page, items: page.items.flatMap((id) => byId.get(id) ?? []) };
}
