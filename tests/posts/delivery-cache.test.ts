/** The /cdn look-up cache: served from memory within its lifetime, forgotten on change. */
import { describe, expect, it } from "vitest";
import { cachedDeliverable, forgetDeliverable } from "../../lib/posts/delivery-cache";

const loader = (value: string, postId = "p1") => {
  let calls = 0;
  const load = async () => {
    calls++;
    return { postId, value };
  };
  return { load, calls: () => calls };
};

describe("delivery cache", () => {
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
