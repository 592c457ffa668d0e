/**
 * Priority (adaptive streaming) minutes: a monthly balance that refills to the plan's
 * allowance at 00:00 UTC on the first of each month (docs/priority-delivery.md).
 *
 * The refill is lazy, so no cron is needed: `User.priorityResetAt` holds the instant the
 * stored balance expires (the first of the month after the one it belongs to), and every
 * read and every charge first rolls the balance over with one conditional UPDATE. Two
 * instances rolling the same user at once both run the UPDATE, but only the first matches
 * its WHERE, so a charge made in between is never wiped by a second refill.
 */
import type { db, Tx } from "@/lib/db/client";
import { isPlan, planLimits, type Plan } from "@/lib/plans";
import { settingsSource } from "@/lib/config/stored-settings";

type Client = Tx | ReturnType<typeof db>;

/** 00:00 UTC on the first of the month after `now`: when the current balance expires. */
export function nextPriorityReset(now: Date = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/**
 * Refills the user's minutes when the stored balance belongs to an earlier month. A null
 * balance already means "the plan's full allowance", so the refill just clears it (an
 * admin override therefore lasts until the end of the month it was set in). A row never
 * stamped (balances from before this column was used) keeps its balance and is stamped
 * for the current month, so deploying this change gives nobody a surprise refill.
 */
export async function rollPriorityMinutes(client: Client, userId: string, now: Date = new Date()): Promise<void> {
  const resetAt = nextPriorityReset(now);
  await client.user.updateMany({
    where: { id: userId, priorityResetAt: { lte: now } },
    data: { priorityMinutes: null, priorityResetAt: resetAt },
  });
  await client.user.updateMany({ where: { id: userId, priorityResetAt: null }, data: { priorityResetAt: resetAt } });
}

/** Minutes left this month after rolling the balance over (null balance = the plan's allowance). */
export async function priorityMinutesLeft(client: Client, userId: string, plan: Plan | "team", now: Date = new Date()): Promise<number> {
  await rollPriorityMinutes(client, userId, now);
  const user = await client.user.findUnique({ where: { id: userId }, select: { priorityMinutes: true } });
  return user?.priorityMinutes ?? planLimits(plan, settingsSource()).priorityMinutes;
}

/**
 * Takes `minutes` from this month's balance, never below zero. Rolls over first, then
 * works only with conditional single-statement UPDATEs (materialise a null balance to the
 * allowance, decrement in SQL, or clamp to zero), so concurrent charges from several
 * instances all count without retries.
 */
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
