/** Keyset paging: newest first, no skips or repeats while rows are inserted between pages. */
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { afterPosition, keysetPage, newestFirst, type Position } from "@/lib/db/paging";
import { useTestDatabase } from "../support/db";

useTestDatabase();

describe("keyset paging", () => {
  it("walks every row once, newest first, while new rows arrive", async () => {
    const user = await db().user.create({ data: { username: "pager", displayUsername: "pager" } });
    const base = Date.UTC(2026, 0, 1);
    // Several rows share a timestamp: the id breaks the tie.
    for (let i = 0; i < 25; i++) {
      await db().post.create({ data: { code: `p${i}`, userId: user.id, createdAt: new Date(base + Math.floor(i / 3) * 1000) } });
    }
    const seen: string[] = [];
    let after: Position | undefined;
    let pages = 0;
    for (;;) {
      const page = await keysetPage(
        4,
        (take) =>
          db().post.findMany({
            where: { userId: user.id, ...afterPosition("createdAt", after) },
            orderBy: newestFirst("createdAt"),
            take,
          }),
        (p) => ({ t: p.createdAt.getTime(), id: p.id }),
      );
      seen.push(...page.items.map((p) => p.code));
      pages++;
      // A newer row arrives between pages: it must not shift what follows.
      await db().post.create({ data: { code: `new${pages}`, userId: user.id, createdAt: new Date(base + 1_000_000 + pages) } });
      if (!page.hasMore) {
        expect(page.next).toBeNull();
        break;
      }
      after = page.next!;
    }
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
    const expected = await db().post.findMany({
      where: { userId: user.id, code: { startsWith: "p" } },
      orderBy: newestFirst("createdAt"),
    });
    expect(seen).toEqual(expected.map((p) => p.code));
    expect(pages).toBe(7);
  });
});
