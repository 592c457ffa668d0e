/** Weekly usage against the quota: what GET /users/@me shows and uploads enforce. */
import { db } from "@/lib/db/client";
import { planLimits, type Plan } from "@/lib/plans";
import { weekWindow } from "./window";
import { settingsSource } from "@/lib/config/stored-settings";

export interface WeeklyUsage {
  quota: number;
  used: number;
  remaining: number;
  resetsAt: Date;
}

export function quotaFor(plan: Plan | "team", override: number | bigint | null | undefined): number {
  return override !== null && override !== undefined ? Number(override) : planLimits(plan, settingsSource()).weeklyQuotaBytes;
}

export async function weeklyUsage(subject: string, quota: number, now: Date = new Date()): Promise<WeeklyUsage> {
  const window = weekWindow(now);
  const row = await db().usageWindow.findUnique({
    where: { subject_windowStart: { subject, windowStart: window.start } },
    select: { bytes: true },
  });
  const used = Number(row?.bytes ?? 0n);
  return { quota, used, remaining: Math.max(0, quota - used), resetsAt: window.end };
}
