/**
 * Hourly counters for GET /analytics?range=24h, written beside the daily ones. Only the last
 * 24 hours are needed, so older rows are deleted after a write, at most once an hour (there is no scheduler).
 */
import { db } from "@/lib/db/client";
import { utcHour } from "./window";

export const HOUR_MS = 3_600_000;

/** The 24 hours reported, plus a day of slack. */
export const KEEP_HOURS = 48;

export const hourStart = (hour: string): string => `${hour}:00:00Z`;

let lastPrune = 0;

export async function pruneHourly(now: Date = new Date()): Promise<void> {
  if (now.getTime() - lastPrune < HOUR_MS) return;
  lastPrune = now.getTime();
  const cutoff = utcHour(new Date(now.getTime() - KEEP_HOURS * HOUR_MS));
  try {
    await db().$transaction([
      db().postViewHour.deleteMany({ where: { hour: { lt: cutoff } } }),
      db().usageHour.deleteMany({ where: { hour: { lt: cutoff } } }),
    ]);
  } catch {
    // Bookkeeping: the next write after an hour tries again.
  }
}

export function resetPruneClock(): void {
  lastPrune = 0;
}
