/** Rate-limit headers and 429s, counted down through the real dispatcher. */
import { describe, expect, it } from "vitest";
import { BUCKETS } from "@/lib/ratelimit";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestTeam, createTestUser } from "../support/fixtures";
import { api, relay } from "../support/http";

useTestDatabase();
useCounterStore();

describe("rate limits", () => {
  it("count down to a 429 with Retry-After, then stay refused", async () => {
    const user = await createTestUser();
    const limit = BUCKETS.posts_get.limit;
    const window = BUCKETS.posts_get.windowSeconds;
    let firstReset = 0;
    for (let i = 1; i <= limit; i++) {
      const before = Math.floor(Date.now() / 1000);
      const reply = await api("/posts/abc123", { key: user.apiKey });
      const after = Math.ceil(Date.now() / 1000);
      expect(reply.status).not.toBe(429);
      expect(reply.headers.get("x-ratelimit-limit")).toBe(String(limit));
      expect(reply.headers.get("x-ratelimit-remaining")).toBe(String(limit - i));
      const reset = Number(reply.headers.get("x-ratelimit-reset"));
      if (i === 1) {
        // The window opens with the first hit and lasts the bucket's window.
        expect(reset).toBeGreaterThanOrEqual(before + window);
        expect(reset).toBeLessThanOrEqual(after + window);
        firstReset = reset;
      }
      expect(reset).toBe(firstReset);
      expect(reply.headers.get("retry-after")).toBeNull();
    }
    const refused = await api("/posts/abc123", { key: user.apiKey });
    expect(refused.status).toBe(429);
    expect(refused.body.error.type).toBe("rate_limited");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(window);
    expect(Number(refused.headers.get("x-ratelimit-reset"))).toBe(firstReset);
  });

  it("are per user, and shared by API and Relay for the same user", async () => {
    const a = await createTestUser();
    const b = await createTestUser();
    await api("/usage-history", { key: a.apiKey });
    const second = await relay("/usage-history", { key: a.relayKey });
    expect(second.headers.get("x-ratelimit-remaining")).toBe(String(BUCKETS.usage_history.limit - 2));
    const other = await api("/usage-history", { key: b.apiKey });
    expect(other.headers.get("x-ratelimit-remaining")).toBe(String(BUCKETS.usage_history.limit - 1));
  });

  it("share one bucket where the spec says so: post, user and comment reports", async () => {
    const user = await createTestUser();
    await api("/posts/abc/report", { method: "POST", key: user.apiKey, body: {} });
    await api("/users/someone/report", { method: "POST", key: user.apiKey, body: {} });
    await relay("/comments/xyz/report", { method: "POST", key: user.relayKey, body: {} });
    const fourth = await api("/posts/abc/report", { method: "POST", key: user.apiKey, body: {} });
    expect(fourth.status).toBe(429);
  });

  it("delete of a post and of a file share a bucket", async () => {
    const user = await createTestUser();
    await api("/posts/abc", { method: "DELETE", key: user.apiKey });
    const reply = await api("/posts/abc/files/a.png", { method: "DELETE", key: user.apiKey });
    expect(reply.headers.get("x-ratelimit-remaining")).toBe(String(BUCKETS.posts_delete.limit - 2));
  });

  it("GET /gifs is limited per IP, with or without a key", async () => {
    const first = await api("/gifs", { ip: "203.0.113.50" });
    expect(first.headers.get("x-ratelimit-limit")).toBe("60");
    const again = await relay("/gifs", { ip: "203.0.113.50", key: (await createTestUser()).relayKey });
    expect(again.headers.get("x-ratelimit-remaining")).toBe("58");
    const elsewhere = await api("/gifs", { ip: "203.0.113.51" });
    expect(elsewhere.headers.get("x-ratelimit-remaining")).toBe("59");
  });

  it("team keys are counted per team", async () => {
    const owner = await createTestUser({ plan: "ultra" });
    const team = await createTestTeam(owner.id);
    await api("/posts/abc", { method: "DELETE", key: team.key });
    const personal = await api("/posts/abc", { method: "DELETE", key: owner.apiKey });
    expect(personal.headers.get("x-ratelimit-remaining")).toBe(String(BUCKETS.posts_delete.limit - 1));
  });

  it("the theme-only profile update has its own bucket", async () => {
    const user = await createTestUser();
    const theme = await relay("/users/@me", { method: "PATCH", key: user.relayKey, body: { theme: { accent: "red" } } });
    expect(theme.headers.get("x-ratelimit-limit")).toBe(String(BUCKETS.theme_update.limit));
    const profile = await relay("/users/@me", { method: "PATCH", key: user.relayKey, body: { nickname: "N" } });
    expect(profile.headers.get("x-ratelimit-limit")).toBe(String(BUCKETS.profile_update.limit));
  });

  it("endpoints without a limit carry no rate-limit headers", async () => {
    const user = await createTestUser();
    for (const [surface, path] of [
      ["api", "/users/@me"],
      ["relay", "/discover"],
      ["relay", "/users/@me/blocks"],
      ["relay", "/posts/abc/comments"],
    ] as const) {
      const reply = surface === "api" ? await api(path, { key: user.apiKey }) : await relay(path, { key: user.relayKey });
      expect(reply.headers.get("x-ratelimit-limit"), path).toBeNull();
      expect(reply.headers.get("x-ratelimit-remaining"), path).toBeNull();
    }
  });
});
