/**
 * Priority minutes, refilled monthly (docs/priority-delivery.md). Lazily, with no cron: every
 * read and charge first rolls the balance over with one conditional UPDATE, so a charge made
 * between two instances' roll-overs is never wiped by a second refill.
 */
import type { db, Tx } from "@/lib/db/client";
import { isPlan, planLimits, type Plan } from "@/lib/plans";
import { settingsSource } from "@/lib/config/stored-settings";

type Client = Tx | ReturnType<typeof db>;

export function nextPriorityReset(now: Date = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/** A null balance already means the full allowance, so the refill clears it; a never-stamped row is stamped without a refill. */
export async function rollPriorityMinutes(client: Client, userId: string, now: Date = new Date()): Promise<void> {
  const resetAt = nextPriorityReset(now);
  await client.user.updateMany({
    where: { id: userId, priorityResetAt: { lte: now } },
    data: { priorityMinutes: null, priorityResetAt: resetAt },
  });
  await client.user.updateMany({ where: { id: userId, priorityResetAt: null }, data: { priorityResetAt: resetAt } });
}

export async function priorityMinutesLeft(client: Client, userId: string, plan: Plan | "team", now: Date = new Date()): Promise<number> {
  await rollPriorityMinutes(client, userId, now);
  const user = await client.user.findUnique({ where: { id: userId }, select: { priorityMinutes: true } });
  return user?.priorityMinutes ?? planLimits(plan, settingsSource()).priorityMinutes;
}

/** Never below zero, with conditional single-statement UPDATEs only, so concurrent charges all count without retries. */
export async function chargePriorityMinutes(client: Client, userId: string, minutes: number, now: Date = new Date()): Promise<void> {
  await rollPriorityMinutes(client, userId, now);
  const user = await client.user.findUnique({ where: { id: userId }, select: { plan: true } });
  if (!user) return;
  const allowance = planLimits(isPlan(user.plan) ? user.plan : "free", settingsSource()).priorityMinutes;
  await client.user.updateMany({ where: { id: userId, priorityMinutes: null }, data: { priorityMinutes: allowance } });
  const { count } = await client.user.updateMany({
    where: { id: userId, priorityMinutes: { gte: minutes } },
    data: { priorityMinutes: { decrement: minutes } },
  });
  if (count === 0) await client.user.updateMany({ where: { id: userId, priorityMinutes: { lt: minutes } }, data: { priorityMinutes: 0 } });
}
