/**
 * The dashboard's server-read first data (lib/web/dashboard/gallery.ts, settings.ts) is what
 * the API answers the same user: the gallery's first page (same posts in the same order, and
 * a cursor the API takes for the next page) and the account (issue 29, docs/dashboard.md).
 */
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../support/db";
import { createTestPost, createTestUser } from "../support/fixtures";
import { api, relay } from "../support/http";
import { firstGalleryPage, GALLERY_PAGE_SIZE, galleryListingOf } from "@/lib/web/dashboard/gallery";
import { firstAccount } from "@/lib/web/dashboard/settings";

/** Signed URLs differ by the second they were made in: compare what does not. */
const shape = (posts: { code: string; title: string | null; privacy: string; files: { name: string }[] }[]) =>
  posts.map((p) => ({ code: p.code, title: p.title, privacy: p.privacy, files: p.files.map((f) => f.name) }));

describe("the dashboard's first page, read by the server", () => {
  useTestDatabase();

  it("is GET /api/posts's first page, and its cursor continues through the API", async () => {
    const user = await createTestUser();
    const other = await createTestUser();
    await createTestPost(other.id, { title: "not mine" });
    const base = Date.now() - 1_000_000;
    for (let i = 0; i < GALLERY_PAGE_SIZE + 5; i++) {
      await createTestPost(user.id, {
        title: `post ${i}`,
        privacy: i % 3 === 0 ? "private" : "public",
        createdAt: new Date(base + i * 1000),
      });
    }
    const first = await firstGalleryPage(user.id, { sort: "date", folder: "" });
    const reply = await api(`/posts?limit=${GALLERY_PAGE_SIZE}`, { key: user.apiKey });
    expect(reply.status).toBe(200);
    expect(first.page.posts).toHaveLength(GALLERY_PAGE_SIZE);
    expect(shape(first.page.posts)).toEqual(shape(reply.body.posts));
    expect(first.page.has_more).toBe(true);

    // The next page, asked for with the server's cursor, is the API's second page.
    const next = await api(`/posts?limit=${GALLERY_PAGE_SIZE}&cursor=${encodeURIComponent(String(first.page.next_cursor))}`, {
      key: user.apiKey,
    });
    expect(next.status).toBe(200);
    expect(next.body.posts.map((p: { title: string }) => p.title)).toEqual(["post 4", "post 3", "post 2", "post 1", "post 0"]);
  });

  it("follows the address's order and folder as the client does; an unknown order is the default", async () => {
    const user = await createTestUser();
    const base = Date.now() - 1_000_000;
    for (const [i, title] of ["b", "c", "a"].entries()) await createTestPost(user.id, { title, createdAt: new Date(base + i * 1000) });
    expect(galleryListingOf({ sort: "name" })).toEqual({ sort: "name", folder: "" });
    expect(galleryListingOf({ sort: "nonsense", folder: "f1" })).toEqual({ sort: "date", folder: "f1" });
    expect(galleryListingOf({ folder: "x".repeat(65) })).toBeNull();

    const byName = await firstGalleryPage(user.id, { sort: "name", folder: "" });
    const reply = await api("/posts?limit=30&sort=name", { key: user.apiKey });
    expect(byName.page.posts.map((p) => p.title)).toEqual(["a", "b", "c"]);
    expect(shape(byName.page.posts)).toEqual(shape(reply.body.posts));
    // A folder that is not the user's lists nothing, as the API does.
    const foreign = await firstGalleryPage(user.id, { sort: "date", folder: "no-such-folder" });
    expect(foreign.page.posts).toEqual([]);
    expect((await api("/posts?folder=no-such-folder", { key: user.apiKey })).body.posts).toEqual([]);
  });

  it("the settings page's account is GET /relay/users/@me's", async () => {
    const user = await createTestUser({ plan: "plus" });
    const { account, readAt } = await firstAccount(user.id);
    const reply = await relay("/users/@me", { key: user.relayKey });
    expect(reply.status).toBe(200);
    expect(account).toEqual(reply.body);
    expect(Math.abs(readAt - Date.now())).toBeLessThan(60_000);
  });
});
