/** GET /gifs paging: cursors, short pages while has_more, bad input, the per-IP limit. */
import { beforeAll, describe, expect, it } from "vitest";
import { scanBudget } from "@/lib/gifs/search";
import { suspendUser } from "@/lib/users/accounts";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser, type TestUser } from "../support/fixtures";
import { api, type Reply } from "../support/http";
import { bulkGifPosts, codesOf } from "./helpers";

useTestDatabase();
useCounterStore({ perTest: true });

const base = Date.UTC(2026, 0, 1);
let author: TestUser;
/** Newest first. */
let loops: string[];
let both: string[];

beforeAll(async () => {
  author = await createTestUser();
  // Oldest: seven "loop" posts.
  loops = (
    await bulkGifPosts(
      author.id,
      Array.from({ length: 7 }, (_, i) => `Loop number ${i}`),
      base,
    )
  ).reverse();
  // Then 300 posts with "red" or "blue"; only every 60th has both, so a two-word search
  // reads many candidates for each match.
  const titles = Array.from({ length: 300 }, (_, i) => (i % 60 === 30 ? `red blue ${i}` : i % 2 ? `red fish ${i}` : `blue fish ${i}`));
  const colours = await bulkGifPosts(author.id, titles, base + 100_000);
  both = colours.filter((_, i) => i % 60 === 30).reverse();
});

const gifs = (query: string, ip?: string) => api(`/gifs${query}`, { ip });

/** Follows next_cursor until has_more is false; checks the paging invariants on the way. */
async function pageThrough(query: string, limit: number): Promise<{ codes: string[]; pages: Reply[] }> {
  const codes: string[] = [];
  const pages: Reply[] = [];
  let cursor: string | null = null;
  do {
    const reply = await gifs(`?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(reply.status).toBe(200);
    expect(reply.body.posts.length).toBeLessThanOrEqual(limit);
    expect(reply.body.next_cursor === null).toBe(!reply.body.has_more);
    codes.push(...codesOf(reply));
    pages.push(reply);
    cursor = reply.body.next_cursor;
    expect(pages.length).toBeLessThan(50);
  } while (cursor);
  return { codes, pages };
}

describe("GET /gifs paging", () => {
  it("pages a search to the end with a cursor, newest first, nothing repeated or skipped", async () => {
    const { codes, pages } = await pageThrough("&search=loop", 3);
    expect(codes).toEqual(loops);
    expect(pages.map((p) => p.body.posts.length)).toEqual([3, 3, 1]);
  });

  it("pages the whole listing, and limit may change between pages", async () => {
    const all = await pageThrough("", 100);
    expect(all.codes).toHaveLength(307);
    expect(new Set(all.codes).size).toBe(307);
    expect(all.codes.slice(-7)).toEqual(loops);
    const first = await gifs("?limit=5");
    const second = await gifs(`?limit=40&cursor=${first.body.next_cursor}`);
    expect([...codesOf(first), ...codesOf(second)]).toEqual(all.codes.slice(0, 45));
  });

  it("may return short pages while has_more is true; looping to the end finds every match", async () => {
    const limit = 5;
    const { codes, pages } = await pageThrough("&search=blue%20red", limit);
    expect(codes).toEqual(both);
    expect(pages.some((p) => p.body.has_more && p.body.posts.length < limit)).toBe(true);
    // Bounded work: no page read more candidates than the budget, so the loop took several pages.
    expect(pages.length).toBeGreaterThanOrEqual(Math.ceil(150 / scanBudget(limit)));
  });

  it("binds the cursor to the search (its words, not their spelling or order)", async () => {
    const first = await gifs("?limit=2&search=loop");
    const cursor = first.body.next_cursor as string;
    expect((await gifs(`?limit=2&search=LOOP&cursor=${cursor}`)).status).toBe(200);
    for (const query of ["", "&search=red", "&search=loop%20number"]) {
      const reply = await gifs(`?limit=2${query}&cursor=${cursor}`);
      expect(reply.status, query).toBe(400);
      expect(reply.body.error.type).toBe("invalid_request");
    }
    const twoWords = await gifs("?limit=1&search=red%20blue");
    expect((await gifs(`?limit=1&search=Blue+RED&cursor=${twoWords.body.next_cursor}`)).status).toBe(200);
  });

  it("400 invalid_request for a bad limit or a malformed or foreign cursor", async () => {
    const foreign = await api(`/users/${author.id}/posts?limit=1`, { key: author.apiKey });
    expect(foreign.body.next_cursor).toEqual(expect.any(String));
    for (const query of ["?limit=0", "?limit=101", "?limit=x", "?limit=2.5", "?cursor=garbage", `?cursor=${foreign.body.next_cursor}`]) {
      const reply = await gifs(query);
      expect(reply.status, query).toBe(400);
      expect(reply.body.error.type).toBe("invalid_request");
    }
    expect((await gifs("?limit=1")).body.posts).toHaveLength(1);
    expect((await gifs("?limit=100")).body.posts).toHaveLength(100);
    expect((await gifs("")).body.posts).toHaveLength(30);
  });

  it("allows 60 requests per minute per IP, then 429 with Retry-After; another IP is unaffected", async () => {
    for (let i = 0; i < 60; i++) {
      const reply = await gifs("?limit=1", "203.0.113.10");
      expect(reply.status, `request ${i + 1}`).toBe(200);
    }
    const refused = await gifs("?limit=1", "203.0.113.10");
    expect(refused.status).toBe(429);
    expect(refused.body.error.type).toBe("rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await gifs("?limit=1", "203.0.113.11")).status).toBe(200);
  });

  it("pages past a suspended author's many posts in short pages without losing anyone", async () => {
    const spammer = await createTestUser();
    const newest = base + 10_000_000;
    const spam = await bulkGifPosts(
      spammer.id,
      Array.from({ length: 250 }, (_, i) => `spam ${i}`),
      newest,
    );
    await suspendUser(spammer.id);
    const first = await gifs("?limit=10");
    expect(first.body.posts).toHaveLength(0);
    expect(first.body.has_more).toBe(true);
    const { codes } = await pageThrough("", 50);
    expect(codes).toHaveLength(307);
    expect(codes.some((c) => spam.includes(c))).toBe(false);
  });
});
