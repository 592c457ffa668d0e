import { describe, expect, it } from "vitest";
import { BUCKETS, UPLOAD_BURST, VIEW_DEDUP, bucketKey, hitBucket, type BucketName } from "@/lib/ratelimit/buckets";
import { rateLimitHeaders } from "@/lib/ratelimit/headers";
import { MemoryStore } from "@/lib/ratelimit/memory";

describe("BUCKETS", () => {
  it("is the rate-limit table of interface.md", () => {
    // [limit, window seconds]; every bucket is per user except gifs and guest_upload (per IP).
    const table: Record<BucketName, [number, number]> = {
      posts_get: [20, 30],
      upload: [20, 30],
      posts_list: [20, 30],
      posts_update: [20, 30],
      posts_files_add: [10, 60],
      posts_delete: [20, 30],
      posts_batch: [10, 60],
      links_read: [60, 60],
      links_write: [30, 60],
      folders_read: [60, 60],
      folders_write: [30, 60],
      tags_read: [60, 60],
      tags_write: [30, 60],
      qr: [30, 60],
      tus: [120, 60],
      reports: [3, 60],
      usage_history: [30, 60],
      analytics: [30, 60],
      gifs: [60, 60],
      convert: [10, 60],
      webhooks_read: [60, 60],
      webhooks_write: [20, 60],
      webhooks_test: [5, 60],
      block: [10, 60],
      unblock: [10, 60],
      follow: [30, 60],
      unfollow: [30, 60],
      followers_list: [30, 60],
      following_list: [30, 60],
      profile_update: [10, 60],
      avatar: [10, 60],
      banner: [10, 60],
      theme_update: [20, 60],
      likes: [30, 60],
      comments_write: [5, 60],
      notifications_list: [60, 60],
      notifications_unread: [60, 60],
      notifications_read: [60, 60],
      preferences_get: [20, 60],
      preferences_update: [20, 60],
      // Own additions (docs/two-factor.md, docs/passkeys.md).
      two_factor: [20, 60],
      passkeys: [20, 60],
      // Own addition (docs/account-deletion.md).
      account_export: [5, 3600],
      // Own addition (docs/guest-uploads.md), per client address.
      guest_upload: [10, 60],
    };
    expect(Object.keys(BUCKETS).sort()).toEqual(Object.keys(table).sort());
    for (const [name, [limit, windowSeconds]] of Object.entries(table)) {
      expect(BUCKETS[name as BucketName], name).toEqual({
        limit,
        windowSeconds,
        scope: name === "gifs" || name === "guest_upload" ? "ip" : "user",
      });
    }
  });

  it("has the safeguard constants", () => {
    expect(UPLOAD_BURST).toEqual({ max: 8, windowSeconds: 1 });
    expect(VIEW_DEDUP).toEqual({ max: 3, windowSeconds: 3600 });
  });

  it("hitBucket applies the bucket's limit under bucket:subject", async () => {
    const store = new MemoryStore({ sweepIntervalMs: 0 });
    expect(bucketKey("reports", "user:42")).toBe("reports:user:42");
    for (let i = 0; i < 3; i++) expect((await hitBucket(store, "reports", "user:42")).allowed).toBe(true);
    const denied = await hitBucket(store, "reports", "user:42");
    expect(denied).toMatchObject({ allowed: false, limit: 3, remaining: 0 });
    expect((await hitBucket(store, "reports", "team:42")).allowed).toBe(true);
    expect((await hitBucket(store, "likes", "user:42")).allowed).toBe(true);
    await store.close();
  });
});

describe("rateLimitHeaders", () => {
  it("sends X-RateLimit-* always and Retry-After only when denied", () => {
    const base = { limit: 20, remaining: 5, resetAt: 1_700_000_030, retryAfter: 12 };
    expect(rateLimitHeaders({ ...base, allowed: true })).toEqual({
      "x-ratelimit-limit": "20",
      "x-ratelimit-remaining": "5",
      "x-ratelimit-reset": "1700000030",
    });
    expect(rateLimitHeaders({ ...base, allowed: false, remaining: 0 })).toEqual({
      "x-ratelimit-limit": "20",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": "1700000030",
      "retry-after": "12",
    });
  });
});
