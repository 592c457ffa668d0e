/**
 * GET /posts?sort= (docs/gallery-sort.md): every order with ties broken by id, paged by
 * cursors bound to the order, the default order and its cursors exactly as before, and the
 * sort keys kept by the writes that change them (upload, append, title edit, file delete).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { GALLERY_SORTS } from "@/lib/posts/list";
import { sortNameOf } from "@/lib/posts/sort-keys";
import { useCounterStore } from "../support/counters";
import { useTestDatabase } from "../support/db";
import { createTestPost, createTestUser, type TestUser } from "../support/fixtures";
import { api, relay } from "../support/http";
import { fixture } from "../support/media";
import { form } from "../support/multipart";

useTestDatabase();
useCounterStore({ perTest: true });

interface Row {
  id: string;
  code: string;
  createdAt: number;
  size: number;
  views: number;
  name: string;
}

let owner: TestUser;
let rows: Row[] = [];
const base = Date.UTC(2026, 5, 1);

beforeAll(async () => {
  owner = await createTestUser();
  // Ties in every key: two posts made in the same millisecond, two of the same size, two
  // with the same views, two with the same name ("zoo" and "Zoo").
  const specs = [
    { t: 1, title: "Zoo", fileSize: 300, viewCount: 5 },
    { t: 2, title: "apple", fileSize: 100, viewCount: 5 },
    { t: 3, title: "Éclair", fileSize: 300, viewCount: 1 },
    { t: 3, title: "_under", fileSize: 200, viewCount: 9 },
    { t: 4, title: null, fileSize: 50, viewCount: 0 }, // named by its file: file0.png
    { t: 5, title: "zoo", fileSize: 400, viewCount: 2, files: 2 },
  ];
  for (const s of specs) {
    await createTestPost(owner.id, { ...s, privacy: "private", createdAt: new Date(base + s.t * 1000) });
  }
  const posts = await db().post.findMany({ where: { userId: owner.id } });
  rows = posts.map((p) => ({
    id: p.id,
    code: p.code,
    createdAt: p.createdAt.getTime(),
    size: Number(p.totalSize),
    views: p.viewCount,
    name: p.sortName,
  }));
});

/** The order a sort must give, worked out here from the rows: key, then id, in the order's direction. */
function expected(sort: string): string[] {
  const reversed = sort.startsWith("-");
  const key = reversed ? sort.slice(1) : sort;
  const value = (r: Row) => ({ date: r.createdAt, size: r.size, views: r.views, name: r.name })[key] as number | string;
  const firstDesc = key !== "name";
  const desc = reversed ? !firstDesc : firstDesc;
  const cmp = (a: Row, b: Row) => {
    const [x, y] = [value(a), value(b)];
    const byKey = x < y ? -1 : x > y ? 1 : 0;
    const byId = a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    return (desc ? -1 : 1) * (byKey || byId);
  };
  return [...rows].sort(cmp).map((r) => r.code);
}

const list = (query: string) => api(`/posts${query}`, { key: owner.apiKey });
const codesOf = (body: { posts: { code: string }[] }) => body.posts.map((p) => p.code);
const cursorBody = (cursor: string) => JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));

describe("GET /posts?sort=", () => {
  it("folds names for comparing: the title, else the first file's name, lower-case without accents", () => {
    expect(sortNameOf("  Éclair au Café ", "x.png")).toBe("eclair au cafe");
    expect(sortNameOf(null, "Shot_1.PNG")).toBe("shot_1.png");
    expect(sortNameOf("x".repeat(100), undefined)).toHaveLength(64);
    expect(rows.map((r) => r.name).sort()).toEqual(["_under", "apple", "eclair", "file0.png", "zoo", "zoo"]);
  });

  it.each(GALLERY_SORTS)("sort=%s: the whole list in its order, ties broken by id", async (sort) => {
    const reply = await list(`?sort=${encodeURIComponent(sort)}`);
    expect(reply.status, reply.text).toBe(200);
    expect(codesOf(reply.body)).toEqual(expected(sort));
    expect(reply.body).toMatchObject({ has_more: false, next_cursor: null });
  });

  it.each(GALLERY_SORTS)("sort=%s: pages of 2 join into the whole list, nothing repeated or skipped", async (sort) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = `?sort=${encodeURIComponent(sort)}&limit=2${cursor ? `&cursor=${cursor}` : ""}`;
      const reply = await list(q);
      expect(reply.status, reply.text).toBe(200);
      seen.push(...codesOf(reply.body));
      cursor = reply.body.next_cursor;
      expect(cursor === null).toBe(!reply.body.has_more);
    } while (cursor);
    expect(seen).toEqual(expected(sort));
  });

  it("the default order is sort=date, with today's cursors: the same pages, and each one's cursor works in the other", async () => {
    const plain = await list("?limit=2");
    const named = await list("?limit=2&sort=date");
    expect(codesOf(plain.body)).toEqual(expected("date").slice(0, 2));
    // The same page (not the same bytes: signed links carry the time they were made).
    expect(codesOf(named.body)).toEqual(codesOf(plain.body));
    expect(named.body.next_cursor).toBe(plain.body.next_cursor);
    // Today's cursor: {v: 1, e, f, t, id} and nothing else.
    expect(Object.keys(cursorBody(plain.body.next_cursor)).sort()).toEqual(["e", "f", "id", "t", "v"]);
    expect(cursorBody(plain.body.next_cursor).v).toBe(1);
    const next = await list(`?limit=2&sort=date&cursor=${plain.body.next_cursor}`);
    expect(codesOf(next.body)).toEqual(expected("date").slice(2, 4));
    expect(codesOf((await list(`?limit=2&cursor=${named.body.next_cursor}`)).body)).toEqual(expected("date").slice(2, 4));
  });

  it("a cursor from one order is 400 invalid_request in another, and with other filters", async () => {
    const cursors: Record<string, string> = {};
    for (const sort of ["date", "-date", "size", "name"]) {
      cursors[sort] = (await list(`?limit=1&sort=${sort}`)).body.next_cursor;
    }
    const refused = [
      ["-date", cursors.date],
      ["date", cursors["-date"]],
      ["views", cursors.size],
      ["-size", cursors.size],
      ["date", cursors.name],
      ["size", cursors.name],
    ];
    for (const [sort, cursor] of refused) {
      const reply = await list(`?limit=1&sort=${sort}&cursor=${cursor}`);
      expect(reply.status, `${sort} with a cursor of another order`).toBe(400);
      expect(reply.body.error).toMatchObject({ type: "invalid_request", message: expect.stringContaining("another sort order") });
    }
    // No sort is the default order: a cursor of another order is refused there too.
    expect((await list(`?limit=1&cursor=${cursors.size}`)).body.error.type).toBe("invalid_request");
    // The filters stay bound as before.
    const filtered = await list(`?limit=1&sort=size&privacy=public&cursor=${cursors.size}`);
    expect(filtered.status).toBe(400);
    expect(filtered.body.error.message).toContain("filters changed");
  });

  it("an unknown sort is 400 invalid_request naming the values", async () => {
    for (const sort of ["bogus", "oldest", "--date", "Date", ""]) {
      const reply = await list(`?sort=${sort}`);
      expect(reply.status, sort).toBe(400);
      expect(reply.body.error.type).toBe("invalid_request");
      expect(reply.body.error.message).toContain("date, -date, size");
    }
  });

  it("a forged cursor whose key the order cannot compare is 400, never a failed query", async () => {
    const forge = (cursor: string, k: unknown) => Buffer.from(JSON.stringify({ ...cursorBody(cursor), k })).toString("base64url");
    const name = (await list("?limit=1&sort=name")).body.next_cursor;
    const size = (await list("?limit=1&sort=size")).body.next_cursor;
    const oldest = (await list("?limit=1&sort=-date")).body.next_cursor;
    for (const [sort, cursor] of [
      ["name", forge(name, 5)],
      ["size", forge(size, 1.5)],
      ["size", forge(size, -1)],
      ["size", forge(size, "big")],
      ["-date", forge(oldest, 1e300)],
    ]) {
      const reply = await list(`?sort=${sort}&cursor=${cursor}`);
      expect(reply.status, `${sort} ${cursorBody(cursor).k}`).toBe(400);
      expect(reply.body.error.type).toBe("invalid_request");
    }
    // A whole number of bytes is a position like any other.
    expect((await list(`?sort=size&cursor=${forge(size, 150)}`)).body.posts.map((p: { code: string }) => p.code)).toEqual(
      expected("size").filter((code) => rows.find((r) => r.code === code)!.size < 150),
    );
  });

  it("works on Relay too", async () => {
    const reply = await relay("/posts?sort=-size&limit=3", { key: owner.relayKey });
    expect(reply.status, reply.text).toBe(200);
    expect(codesOf(reply.body)).toEqual(expected("-size").slice(0, 3));
  });
});

describe("the sort keys follow the writes", () => {
  const keys = async (code: string) => {
    const post = await db().post.findUniqueOrThrow({ where: { code }, include: { files: { orderBy: { index: "asc" } } } });
    return {
      totalSize: Number(post.totalSize),
      sortName: post.sortName,
      sum: post.files.reduce((n, f) => n + Number(f.size), 0),
      first: post.files[0].name,
    };
  };

  it("an upload, an appended file, a title edit and a file delete keep totalSize and sortName", async () => {
    const user = await createTestUser();
    const png = await fixture("png");
    const up = await api("/upload", {
      method: "POST",
      key: user.apiKey,
      rawBody: await form([{ path: png, name: "Über Shot.png", type: "image/png" }]),
    });
    expect(up.status, up.text).toBe(200);
    const code = up.body.post.code as string;
    let k = await keys(code);
    expect(k.totalSize).toBe(k.sum);
    expect(k.totalSize).toBeGreaterThan(0);
    expect(k.sortName).toBe(sortNameOf(null, k.first));
    expect(k.sortName.startsWith("uber")).toBe(true);

    const added = await api(`/posts/${code}/files`, {
      method: "POST",
      key: user.apiKey,
      rawBody: await form([{ path: await fixture("jpegExif"), name: "second.jpg", type: "image/jpeg" }]),
    });
    expect(added.status, added.text).toBe(200);
    k = await keys(code);
    expect(k.totalSize).toBe(k.sum);

    expect((await api(`/posts/${code}`, { method: "PATCH", key: user.apiKey, body: { title: "Álbum" } })).status).toBe(200);
    expect((await keys(code)).sortName).toBe("album");
    expect((await api(`/posts/${code}`, { method: "PATCH", key: user.apiKey, body: { title: null } })).status).toBe(200);
    expect((await keys(code)).sortName).toBe(sortNameOf(null, k.first));

    // Deleting the first file makes the second one the name.
    const first = k.first;
    expect((await api(`/posts/${code}/files/${encodeURIComponent(first)}`, { method: "DELETE", key: user.apiKey })).status).toBe(200);
    k = await keys(code);
    expect(k.totalSize).toBe(k.sum);
    expect(k.sortName).toBe(sortNameOf(null, k.first));
    expect(k.first).not.toBe(first);
  });
});
