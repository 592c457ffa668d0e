/** GET /usage-history: sparse UTC days, stats, streak, auth rules. */
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { usageHistory } from "@/lib/usage/history";
import { userSubject, utcDay } from "@/lib/usage/window";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestTeam, createTestUser } from "../support/fixtures";
import { api, relay } from "../support/http";

useTestDatabase();
useCounterStore();

const DAY = 86_400_000;
const dayAgo = (n: number, now = Date.now()) => utcDay(new Date(now - n * DAY));

describe("GET /usage-history", () => {
  it("an account with no uploads: empty history, zero stats, biggest_day null", async () => {
    const user = await createTestUser();
    const reply = await api("/usage-history", { key: user.apiKey });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      history: [],
      stats: { total_bytes: 0, upload_count: 0, active_days: 0, current_streak: 0, biggest_day: null, window_days: 365 },
    });
  });

  it("returns sparse days oldest first with stats over the 365-day window", async () => {
    const user = await createTestUser();
    const subject = userSubject(user.id);
    const rows = [
      { day: dayAgo(400), bytes: 999n, uploadCount: 9 }, // outside the window
      { day: dayAgo(364), bytes: 10n, uploadCount: 1 }, // first day of the window
      { day: dayAgo(30), bytes: 500n, uploadCount: 2 },
      { day: dayAgo(2), bytes: 50n, uploadCount: 1 },
      { day: dayAgo(1), bytes: 70n, uploadCount: 1 },
      { day: dayAgo(0), bytes: 20n, uploadCount: 3 },
    ];
    for (const r of rows) await db().usageDay.create({ data: { subject, ...r } });
    const reply = await relay("/usage-history", { key: user.relayKey });
    expect(reply.body.history).toEqual([
      { day: dayAgo(364), bytes: 10, upload_count: 1 },
      { day: dayAgo(30), bytes: 500, upload_count: 2 },
      { day: dayAgo(2), bytes: 50, upload_count: 1 },
      { day: dayAgo(1), bytes: 70, upload_count: 1 },
      { day: dayAgo(0), bytes: 20, upload_count: 3 },
    ]);
    expect(reply.body.stats).toEqual({
      total_bytes: 650,
      upload_count: 8,
      active_days: 5,
      current_streak: 3,
      biggest_day: { day: dayAgo(30), bytes: 500 },
      window_days: 365,
    });
  });

  it("current_streak is 0 when nothing was uploaded today", async () => {
    const user = await createTestUser();
    await db().usageDay.create({ data: { subject: userSubject(user.id), day: dayAgo(1), bytes: 5n, uploadCount: 1 } });
    expect((await usageHistory(user.id)).currentStreak).toBe(0);
  });

  it("team keys get 401; suspended accounts 403", async () => {
    const owner = await createTestUser({ plan: "ultra" });
    const team = await createTestTeam(owner.id);
    expect((await api("/usage-history", { key: team.key })).status).toBe(401);
    const gone = await createTestUser({ suspended: true });
    expect((await api("/usage-history", { key: gone.apiKey })).body.error.type).toBe("suspended");
  });
});
