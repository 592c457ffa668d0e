/** GET /usage-history: successful uploads per UTC day over the last 365 days. */
import { db } from "@/lib/db/client";
import { DAY_MS, userSubject, utcDay } from "./window";

export const HISTORY_WINDOW_DAYS = 365;

export interface HistoryDay {
  day: string;
  bytes: number;
  uploadCount: number;
}

export interface UsageHistory {
  history: HistoryDay[];
  totalBytes: number;
  uploadCount: number;
  activeDays: number;
  /** Consecutive UTC days with uploads ending today; 0 when nothing was uploaded today. */
  currentStreak: number;
  biggestDay: { day: string; bytes: number } | null;
}

export async function usageHistory(userId: string, now: Date = new Date()): Promise<UsageHistory> {
  const today = utcDay(now);
  const first = utcDay(new Date(now.getTime() - (HISTORY_WINDOW_DAYS - 1) * DAY_MS));
  const rows = await db().usageDay.findMany({
    where: { subject: userSubject(userId), day: { gte: first, lte: today }, uploadCount: { gt: 0 } },
    orderBy: { day: "asc" },
  });
  const history = rows.map((r) => ({ day: r.day, bytes: Number(r.bytes), uploadCount: r.uploadCount }));

  const active = new Set(history.map((h) => h.day));
  let currentStreak = 0;
  for (let t = now.getTime(); active.has(utcDay(new Date(t))); t -= DAY_MS) currentStreak++;

  let biggestDay: UsageHistory["biggestDay"] = null;
  for (const h of history) if (!biggestDay || h.bytes > biggestDay.bytes) biggestDay = { day: h.day, bytes: h.bytes };

  return {
    history,
    totalBytes: history.reduce((n, h) => n + h.bytes, 0),
    uploadCount: history.reduce((n, h) => n + h.uploadCount, 0),
    activeDays: history.length,
    currentStreak,
    biggestDay,
  };
}
