/**
 * Which newest-first stream a GET /gifs page reads its candidates from. Every stream is a
 * superset of the answer, in the answer's order, so reading a bounded slice of it and
 * filtering is correct; a selective stream only means fewer short pages.
 *
 * - no search words: the public-GIF posts themselves;
 * - otherwise the stored words starting with the most selective search word, each an
 *   ordered index range, merged. When every search word starts too many distinct stored
 *   words (one or two letters: "a", "ca"), the merge would be too wide; such prefixes are
 *   common, so the public-GIF posts, filtered, fill pages about as well.
 */
import { countWordRows, wordsStartingWith } from "./queries";
import type { SearchTerm } from "./terms";

/** Distinct stored words one search word may stand for before the merge is too wide. */
export const MAX_EXPANSION = 48;
/** Rows counted per search word to rank them; enough to tell rare from common. */
export const COUNT_CAP = 2_000;

export type Driver =
  /** No post can match (a search word starts no stored word of a public GIF post). */
  | { kind: "empty" }
  /** Public GIF posts; every search word is checked per candidate. */
  | { kind: "posts"; filters: SearchTerm[] }
  /** Posts having one of `words` (all the stored words starting with `term`); the other search words are checked. */
  | { kind: "words"; term: SearchTerm; words: string[]; filters: SearchTerm[] };

/** The search words, rarest first; counting is skipped when there is nothing to rank. */
async function bySelectivity(terms: readonly SearchTerm[]): Promise<{ term: SearchTerm; rows: number }[]> {
  if (terms.length === 1) return [{ term: terms[0], rows: -1 }];
  const counted = await Promise.all(terms.map(async (term) => ({ term, rows: await countWordRows(term, COUNT_CAP) })));
  // Ties (typically all at the cap): a longer prefix is the safer bet.
  return counted.sort((a, b) => a.rows - b.rows || b.term.prefix.length - a.term.prefix.length);
}

export async function chooseDriver(terms: readonly SearchTerm[]): Promise<Driver> {
  if (!terms.length) return { kind: "posts", filters: [] };
  for (const { term, rows } of await bySelectivity(terms)) {
    if (rows === 0) return { kind: "empty" };
    const words = await wordsStartingWith(term, MAX_EXPANSION);
    if (!words.length) return { kind: "empty" };
    if (words.length <= MAX_EXPANSION) return { kind: "words", term, words, filters: terms.filter((t) => t !== term) };
  }
  return { kind: "posts", filters: [...terms] };
}
