/**
 * GET /gifs (docs/gifs.md): each page reads at most `scanBudget(limit)` candidates, so work is
 * bounded whatever the table or the search; a page may then hold fewer than `limit` with
 * `has_more` true (the spec allows it), its cursor at the last candidate read.
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
  after?: Position;
}

/** A few pages' worth, so sparse matches still fill pages. */
export const scanBudget = (limit: number): number => Math.max(120, 4 * limit + 1);

const positionOf = (c: Candidate): Position => ({ t: c.t, id: c.id });

export function readCandidates(
  driver: Exclude<Driver, { kind: "empty" }>,
  after: Position | undefined,
  take: number,
): Promise<Candidate[]> {
  const stream = driver.kind === "words" ? wordStreamSql(driver.words, after, take) : gifPostStreamSql(after, take);
  return scan(stream, driver.filters);
}

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

export async function listGifs(query: GifQuery): Promise<Page<PostRecord>> {
  const page = await searchGifIds(query);
  if (!page.items.length) return { ...page, items: [] };
  const rows = await db().post.findMany({ where: { id: { in: page.items } }, include: postInclude });
  const byId = new Map(rows.map((r) => [r.id, r]));
  // A post deleted between the two reads is simply left out.
  return { ...page, items: page.items.flatMap((id) => byId.get(id) ?? []) };
}
