/**
 * Share-page password tries (issue 27, docs/share-passwords.md): per address and post, with
 * IPv6 grouped by /64, and per post from every address together, the owner left out. In the
 * process's counter store: memory, or Redis with TEST_REDIS_URL (per-file setup).
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { beginShareGuess, SHARE_PASSWORD_ATTEMPTS, SHARE_PASSWORD_POST_LIMIT } from "@/lib/web/share-guesses";

const code = () => `c${randomBytes(6).toString("hex")}`;

async function tries(post: string, ip: string, n: number, right = false, owner = false): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const guess = await beginShareGuess(post, ip, owner);
    if (guess.allowed) await guess.settle(right);
    out.push(guess.allowed ? "ok" : guess.reason);
  }
  return out;
}

describe("share-page password tries", () => {
  it("count per address and post, every IPv6 address of one /64 together", async () => {
    const post = code();
    expect(await tries(post, "2001:db8:1:2::1", SHARE_PASSWORD_ATTEMPTS.max)).not.toContain("limited");
    expect(await tries(post, "2001:db8:1:2:ffff:ffff:ffff:fffe", 1)).toEqual(["limited"]);
    // Another /64, or another post, has its own count.
    expect(await tries(post, "2001:db8:1:3::1", 1)).toEqual(["ok"]);
    expect(await tries(code(), "2001:db8:1:2::1", 1)).toEqual(["ok"]);
  });

  it("stop wrong passwords to one post from many addresses, but not the owner; right ones are not counted", async () => {
    const post = code();
    const { max } = SHARE_PASSWORD_POST_LIMIT;
    // Right passwords give their place back.
    for (let i = 0; i < 5; i++) expect(await tries(post, `198.51.100.${i}`, 1, true)).toEqual(["ok"]);
    // Wrong ones from max different addresses (each far under its own limit) use the post's budget up.
    for (let i = 0; i < max; i++) expect(await tries(post, `10.${i >> 8}.${i & 255}.9`, 1)).toEqual(["ok"]);
    expect(await tries(post, "203.0.113.7", 1)).toEqual(["later"]);
    expect(await tries(post, "203.0.113.7", 1, true)).toEqual(["later"]);
    expect(await tries(post, "203.0.113.8", 1, true, true)).toEqual(["ok"]);
  });
});
