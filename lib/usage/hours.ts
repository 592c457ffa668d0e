/**
 * Hourly counters for GET /analytics?range=24h: counted views per post (PostViewHour) and
 * successful uploads per subject (UsageHour), per UTC hour. They are written next to their
 * daily counterparts (PostViewDay, UsageDay), which keep the history; the hourly rows are
 * only needed for the last 24 hours, so rows older than KEEP_HOURS are deleted, at most
 * once an hour per process, after a write has been made (there is no scheduler to do it).
 */
import { db } from "@/lib/db/client";
import { utcHour } from "./window";

export const HOUR_MS = 3_600_000;

/** Hourly rows kept: the 24 hours reported, plus a day of slack for clocks and late readers. */
export const KEEP_HOURS = 48;

/** The start of a stored hour as an ISO 8601 timestamp (`2026-11-24T13:00:00Z`). */
export const hourStart = (hour: string): string => `${hour}:00:00Z`;

let lastPrune = 0;

/** Deletes hourly rows older than KEEP_HOURS, unless that was done in the last hour. Never throws. */
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

/** Tests: the next pruneHourly runs whatever the time of the last one. */
export function resetPruneClock(): void {
  lastPrune = 0;
}
