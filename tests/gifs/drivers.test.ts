/**
 * GET /gifs search through each kind of driving stream (lib/gifs/driver.ts): a prefix
 * standing for several stored words (merged ranges), a prefix too wide to merge (the
 * public-GIF listing, filtered), and a prefix that starts no word at all.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { chooseDriver, MAX_EXPANSION } from "@/lib/gifs/driver";
import { searchTerms } from "@/lib/gifs/terms";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser } from "../support/fixtures";
import { api } from "../support/http";
import { bulkGifPosts, codesOf } from "./helpers";

useTestDatabase();
useCounterStore({ perTest: true });

const base = Date.UTC(2026, 2, 1);
/** Newest first. */
let dance: string[];
let wide: string[];

beforeAll(async () => {
  const author = await createTestUser();
  // Interleaved in time: the merge of the "dancer", "dances" and "dancing" ranges must
  // come out newest first, not word by word.
  const danceTitles = Array.from({ length: 12 }, (_, i) => `${["Dancing cat", "Dancer on stage", "She dances"][i % 3]} ${i}`);
  dance = (await bulkGifPosts(author.id, danceTitles, base)).reverse();
  // More distinct words starting with "q" than one search word may stand for.
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const qWords = Array.from({ length: MAX_EXPANSION + 12 }, (_, i) => `q${letters[Math.floor(i / 26)]}${letters[i % 26]}`);
  wide = (
    await bulkGifPosts(
      author.id,
      qWords.map((w) => `${w} loop`),
      base + 100_000,
    )
  ).reverse();
  await bulkGifPosts(author.id, ["plain title"], base + 1_000_000);
});

const search = async (words: string, limit = 100) => codesOf(await api(`/gifs?limit=${limit}&search=${encodeURIComponent(words)}`));

describe("GET /gifs driving streams", () => {
  it("merges the words a prefix stands for, newest first", async () => {
    const driver = await chooseDriver(searchTerms("danc"));
    expect(driver).toMatchObject({ kind: "words", words: ["dancer", "dances", "dancing"] });
    expect(await search("danc")).toEqual(dance);
    expect(await search("dance")).toEqual(dance.filter((_, i) => (11 - i) % 3 !== 0));
    expect(await search("danc cat")).toEqual(dance.filter((_, i) => (11 - i) % 3 === 0));
  });

  it("falls back to the filtered listing for a prefix that starts too many words, and still finds them all", async () => {
    expect((await chooseDriver(searchTerms("q"))).kind).toBe("posts");
    expect(await search("q")).toEqual(wide);
    expect(await search("Q LOOP")).toEqual(wide);
    // With a narrower word beside it, the wide one is only checked per candidate.
    expect(await chooseDriver(searchTerms("q loop"))).toMatchObject({ kind: "words", words: ["loop"], filters: [{ prefix: "q" }] });
    expect(await search("qab q")).toEqual([wide[wide.length - 2]]);
  });

  it("answers at once when a search word starts no stored word", async () => {
    expect(await chooseDriver(searchTerms("zzz"))).toEqual({ kind: "empty" });
    expect(await chooseDriver(searchTerms("loop zzz"))).toEqual({ kind: "empty" });
    const reply = await api("/gifs?search=zzz");
    expect(reply.body).toEqual({ posts: [], has_more: false, next_cursor: null });
  });

  it("pages a fallback search to the end", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const reply = await api(`/gifs?limit=7&search=q${cursor ? `&cursor=${cursor}` : ""}`);
      expect(reply.status).toBe(200);
      seen.push(...codesOf(reply));
      cursor = reply.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(wide);
  });
});
