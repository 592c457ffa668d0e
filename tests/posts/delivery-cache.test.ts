/** The /cdn look-up cache: served from memory within its lifetime, forgotten on change. */
import { beforeAll, describe, expect, it, vi } from "vitest";
import { closeDb, createDb } from "../../lib/db/client";
import { markChanged } from "../../lib/db/change-signal";
import { cachedDeliverable, DELIVERY_CACHE_TTL_MS, forgetDeliverable, peekDeliverable } from "../../lib/posts/delivery-cache";
import { settledVersion, useTestDatabase } from "../support/db";

const loader = (value: string, postId = "p1") => {
  let calls = 0;
  const load = async () => {
    calls++;
    return { postId, value };
  };
  return { load, calls: () => calls };
};

describe("delivery cache", () => {
  // The entries follow the database's change number, which needs a real database.
  const database = useTestDatabase();
  beforeAll(settledVersion);

  it("loads once per post file within its lifetime", async () => {
    const l = loader("v1");
    expect(await cachedDeliverable("codeA", "a.png", l.load)).toBe("v1");
    expect(await cachedDeliverable("codeA", "a.png", l.load)).toBe("v1");
    expect(l.calls()).toBe(1);
  });

  it("forgets a post by code or by id", async () => {
    const l = loader("v1", "pB");
    await cachedDeliverable("codeB", "b.png", l.load);
    forgetDeliverable({ code: "codeB" });
    await cachedDeliverable("codeB", "b.png", l.load);
    expect(l.calls()).toBe(2);
    forgetDeliverable({ postId: "pB" });
    await cachedDeliverable("codeB", "b.png", l.load);
    expect(l.calls()).toBe(3);
  });

  it("does not keep what a load read while the post was changing", async () => {
    let release!: () => void;
    const gate = new Promise<void>((done) => (release = done));
    const slow = cachedDeliverable("codeC", "c.png", async () => {
      await gate;
      return { postId: "pC", value: "before" };
    });
    forgetDeliverable({ code: "codeC" });
    release();
    expect(await slow).toBe("before");
    const fresh = loader("after", "pC");
    expect(await cachedDeliverable("codeC", "c.png", fresh.load)).toBe("after");
    expect(fresh.calls()).toBe(1);
  });

  it("counts an entry only while the database's change number is the one it was filled at", async () => {
    // Another process (the admin CLI moderating a post, another instance) moves the number
    // and forgets nothing here: the entry must not be served past it.
    const l = loader("v1", "pE");
    await cachedDeliverable("codeE", "e.png", l.load);
    expect(peekDeliverable("codeE", "e.png")).toBe("v1");
    markChanged();
    expect(peekDeliverable("codeE", "e.png")).toBeUndefined();
    await cachedDeliverable("codeE", "e.png", l.load);
    expect(l.calls()).toBe(2);
    expect(peekDeliverable("codeE", "e.png")).toBe("v1");
  });

  it("is not served past a commit made by another connection (the admin CLI, another instance)", async () => {
    const l = loader("v1", "pF");
    await cachedDeliverable("codeF", "f.png", l.load);
    expect(peekDeliverable("codeF", "f.png")).toBe("v1");
    const other = createDb(database().config);
    try {
      await other.user.create({ data: { username: "elsewhere", displayUsername: "elsewhere" } });
    } finally {
      await closeDb(other);
    }
    // SQLite shows it within a millisecond, PostgreSQL when its notification arrives: both
    // well before the entry's own lifetime (DELIVERY_CACHE_TTL_MS) would end it.
    await vi.waitFor(() => expect(peekDeliverable("codeF", "f.png")).toBeUndefined(), {
      timeout: DELIVERY_CACHE_TTL_MS / 4,
      interval: 2,
    });
  });

  it("makes one load for requests that miss together, and none shared across a change", async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((done) => (release = done));
    const load = async () => {
      const call = ++calls;
      await gate;
      return { postId: "pG", value: `v${call}` };
    };
    const together = [cachedDeliverable("codeG", "g.png", load), cachedDeliverable("codeG", "g.png", load)];
    // A change while the load is out: a request after it must not join the old load.
    forgetDeliverable({ code: "codeG" });
    const after = cachedDeliverable("codeG", "g.png", load);
    release();
    expect(await Promise.all(together)).toEqual(["v1", "v1"]);
    expect(await after).toBe("v2");
    expect(calls).toBe(2);
  });

  it("does not cache files that are not found", async () => {
    let calls = 0;
    const missing = async () => {
      calls++;
      return null;
    };
    expect(await cachedDeliverable("codeD", "d.png", missing)).toBeNull();
    expect(await cachedDeliverable("codeD", "d.png", missing)).toBeNull();
    expect(calls).toBe(2);
  });
});
