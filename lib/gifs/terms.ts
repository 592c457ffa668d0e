/** The words of a GET /gifs `search`, normalised exactly like the stored PostWord rows (lib/posts/words.ts). */
import { normaliseWords, prefixUpperBound } from "@/lib/posts/words";

/** Later ones are ignored (docs/gifs.md, "Search semantics"). */
export const MAX_SEARCH_WORDS = 6;

export interface SearchTerm {
  prefix: string;
  upper: string;
}

/** A word that begins another search word is dropped: "cat catalog" is the same search as "catalog". */
export function searchTerms(search: string | undefined): SearchTerm[] {
  const words = normaliseWords(search ?? "").slice(0, MAX_SEARCH_WORDS);
  return words
    .filter((w) => !words.some((other) => other !== w && other.startsWith(w)))
    .map((prefix) => ({ prefix, upper: prefixUpperBound(prefix) }));
}

/** The same words in any order or spelling are the same listing. */
export const searchKey = (terms: readonly SearchTerm[]): string =>
  terms
    .map((t) => t.prefix)
    .sort()
    .join(" ");
