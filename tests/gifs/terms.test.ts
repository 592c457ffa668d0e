/** GET /gifs search words: normalisation, the 6-word limit, redundant prefixes, cursor key. */
import { describe, expect, it } from "vitest";
import { MAX_SEARCH_WORDS, searchKey, searchTerms } from "@/lib/gifs/terms";

const prefixes = (search: string | undefined) => searchTerms(search).map((t) => t.prefix);

describe("searchTerms", () => {
  it("lower-cases, folds accents and splits on anything but letters and digits", () => {
    expect(prefixes("  Café-CRÈME, naïve!! ")).toEqual(["cafe", "creme", "naive"]);
    expect(prefixes("")).toEqual([]);
    expect(prefixes(undefined)).toEqual([]);
    expect(prefixes("!!! ---")).toEqual([]);
  });

  it("uses the first six words and ignores the rest", () => {
    expect(MAX_SEARCH_WORDS).toBe(6);
    expect(prefixes("one two three four five six seven eight")).toEqual(["one", "two", "three", "four", "five", "six"]);
  });

  it("drops a word that starts another search word (it can only match where the longer one does)", () => {
    expect(prefixes("cat catalog dog")).toEqual(["catalog", "dog"]);
    expect(prefixes("cat cat")).toEqual(["cat"]);
  });

  it("gives each word its exclusive upper bound", () => {
    expect(searchTerms("cat")).toEqual([{ prefix: "cat", upper: "cau" }]);
    expect(searchTerms("z9")).toEqual([{ prefix: "z9", upper: "z:" }]);
  });

  it("keys cursors by the words, not their order or spelling", () => {
    expect(searchKey(searchTerms("Dancing CAT"))).toBe(searchKey(searchTerms("cat dancing")));
    expect(searchKey(searchTerms("cat"))).not.toBe(searchKey(searchTerms("dog")));
    expect(searchKey(searchTerms(""))).toBe("");
  });
});
