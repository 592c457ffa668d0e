/**
 * The newest-first stream a GET /gifs page reads: always a superset of the answer in its order,
 * so a bounded slice, filtered, is correct. Search words that each start too many stored words
 * ("a", "ca") read the public-GIF posts instead: those prefixes are common anyway.
 */
import { countWordRows, wordsStartingWith } from "./queries";
import type { SearchTerm } from "./terms";

/** Distinct stored words one search word may stand for before the merge is too wide. */
export const MAX_EXPANSION = 48;
export const COUNT_CAP = 2_000;

export type Driver =
  | { kind: "empty" }
  | { kind: "posts"; filters: SearchTerm[] }
  | { kind: "words"; term: SearchTerm; words: string[]; filters: SearchTerm[] };

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
