/**
 * The words of a GET /gifs `search`: normalised exactly like the stored PostWord rows
 * (lib/posts/words.ts: lower-case, accents folded, split on non-letters), so "CAFÉ" finds
 * "café" and "Cafe" alike on SQLite and PostgreSQL.
 */
import { normaliseWords, prefixUpperBound } from "@/lib/posts/words";

/** At most 6 search words are used; later ones are ignored (docs/gifs.md, "Search semantics"). */
export const MAX_SEARCH_WORDS = 6;

/** One search word: matches stored words w with `prefix <= w < upper`, i.e. starting with `prefix`. */
export interface SearchTerm {
  prefix: string;
  upper: string;
}

/**
 * The distinct normalised words of `search`, the first six only. A word that begins
 * another search word is dropped: any post matching "catalog" also matches "cat", so
 * "cat catalog" is the same search as "catalog" with one check less.
 */
export function searchTerms(search: string | undefined): SearchTerm[] {
  const words = normaliseWords(search ?? "").slice(0, MAX_SEARCH_WORDS);
  return words
    .filter((w) => !words.some((other) => other !== w && other.startsWith(w)))
    .map((prefix) => ({ prefix, upper: prefixUpperBound(prefix) }));
}

/** The search as cursors are bound to it: the same words in any order or spelling are the same listing. */
export const searchKey = (terms: readonly SearchTerm[]): string =>
  terms
    .map((t) => t.prefix)
    .sort()
    .join(" ");
