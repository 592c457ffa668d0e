/** The weekly quota window, Monday 00:00 UTC: a calendar week, so `resets_at` is one instant everyone can plan around (docs/plans.md). */
export const DAY_MS = 86_400_000;

export interface Window {
  start: Date;
  end: Date;
}

export function weekWindow(now: Date = new Date()): Window {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const sinceMonday = (now.getUTCDay() + 6) % 7;
  const start = new Date(midnight - sinceMonday * DAY_MS);
  return { start, end: new Date(start.getTime() + 7 * DAY_MS) };
}

export const utcDay = (d: Date = new Date()): string => d.toISOString().slice(0, 10);
/** `YYYY-MM-DDTHH`, which sorts like the time. */
export const utcHour = (d: Date = new Date()): string => d.toISOString().slice(0, 13);

export const userSubject = (userId: string) => `u:${userId}`;
export const teamSubject = (teamId: string) => `t:${teamId}`;
