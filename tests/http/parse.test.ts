/** The shared parsers: boolean headers, privacy, text limits, paging, cursors. */
import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "@/lib/http/cursor";
import { booleanHeader, limitedText, pagingQuery, privacyHeader } from "@/lib/http/parse";
import { DomainError } from "@/lib/errors";

const h = (value?: string) => new Headers(value === undefined ? {} : { x: value, "post-privacy": value });

function expectInvalid(fn: () => unknown) {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    expect((e as DomainError).type).toBe("invalid_request");
    expect((e as DomainError).httpStatus).toBe(400);
    return;
  }
  throw new Error("expected invalid_request");
}

describe("boolean headers", () => {
  it("accept only true/false, trimmed and case-insensitive", () => {
    expect(booleanHeader(h(" TRUE "), "x", false)).toBe(true);
    expect(booleanHeader(h("False"), "x", true)).toBe(false);
    expect(booleanHeader(h(), "x", true)).toBe(true);
    for (const bad of ["1", "0", "yes", "", "on", "truee"]) expectInvalid(() => booleanHeader(h(bad), "x", true));
  });
});

describe("post-privacy", () => {
  it("defaults to private and accepts the three values, trimmed and case-insensitive", () => {
    expect(privacyHeader(h())).toBe("private");
    expect(privacyHeader(h(" Public "))).toBe("public");
    expect(privacyHeader(h("UNLISTED"))).toBe("unlisted");
    for (const bad of ["", "hidden", "true", "publicx"]) expectInvalid(() => privacyHeader(h(bad)));
  });
});

describe("text limits", () => {
  it("reject past the limit in characters, never truncate", () => {
    const title = limitedText("title", 30);
    expect(title.parse("a".repeat(30))).toBe("a".repeat(30));
    expect(title.parse("😀".repeat(30))).toBe("😀".repeat(30)); // code points, not UTF-16 units
    expect(title.safeParse("a".repeat(31)).success).toBe(false);
  });
});

describe("paging", () => {
  it("limit is 1..100, default 30", () => {
    expect(pagingQuery.parse({}).limit).toBe(30);
    expect(pagingQuery.parse({ limit: "1" }).limit).toBe(1);
    expect(pagingQuery.parse({ limit: "100" }).limit).toBe(100);
    for (const bad of ["0", "101", "-1", "1.5", "abc", "1e2", " "]) expect(pagingQuery.safeParse({ limit: bad }).success, bad).toBe(false);
  });

  it("cursors round-trip, belong to one endpoint and one set of filters", () => {
    const c = encodeCursor("listPosts", { t: 1_700_000_000_000, id: "abc" }, { privacy: "public" });
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor("listPosts", c, { privacy: "public" })).toEqual({ t: 1_700_000_000_000, id: "abc" });
    expectInvalid(() => decodeCursor("listGifs", c, { privacy: "public" }));
    expectInvalid(() => decodeCursor("listPosts", c, { privacy: "private" }));
    // A forged cursor whose time no Date can hold is refused here, not by the database (500).
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(c, "base64url").toString()), t: 9e15 })).toString("base64url");
    for (const bad of ["", "!!!", "abc", Buffer.from("{}").toString("base64url"), c.slice(0, -3), forged]) {
      expectInvalid(() => decodeCursor("listPosts", bad, { privacy: "public" }));
    }
  });
});
