/**
 * Monthly refill of priority minutes (docs/priority-delivery.md): lazy roll-over at
 * 00:00 UTC on the first of the month, on every read and every charge, race-free.
 */
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { planLimits } from "@/lib/plans";
import { setPriorityMinutes } from "@/lib/users/accounts";
import { chargePriorityMinutes, nextPriorityReset, priorityMinutesLeft } from "@/lib/usage/priority";
import { useTestDatabase } from "../support/db";
import { createTestUser } from "../support/fixtures";
import { api } from "../support/http";

useTestDatabase();

const NOV = new Date("2026-11-30T23:59:59.000Z");
const DEC = new Date("2026-12-01T00:00:00.000Z");
const free = () => planLimits("free").priorityMinutes;
const stored = async (id: string) =>
  db().user.findUniqueOrThrow({ where: { id }, select: { priorityMinutes: true, priorityResetAt: true } });

describe("priority minutes refill", () => {
  it("resets at 00:00 UTC on the first of the next month", () => {
    expect(nextPriorityReset(new Date("2026-11-15T12:00:00Z")).toISOString()).toBe("2026-12-01T00:00:00.000Z");
    expect(nextPriorityReset(new Date("2026-12-31T23:59:59Z")).toISOString()).toBe("2027-01-01T00:00:00.000Z");
    expect(nextPriorityReset(DEC).toISOString()).toBe("2027-01-01T00:00:00.000Z");
  });

  it("keeps a charged balance through the month and refills it on the first", async () => {
    const user = await createTestUser();
    await chargePriorityMinutes(db(), user.id, 7, new Date("2026-11-03T10:00:00Z"));
    expect(await priorityMinutesLeft(db(), user.id, "free", NOV)).toBe(free() - 7);
    expect(await priorityMinutesLeft(db(), user.id, "free", DEC)).toBe(free());
    // A charge in the new month counts against the refilled balance, not the old one.
    await chargePriorityMinutes(db(), user.id, 2, new Date("2026-12-02T00:00:00Z"));
    expect(await priorityMinutesLeft(db(), user.id, "free", new Date("2026-12-20T00:00:00Z"))).toBe(free() - 2);
  });

  it("charges the new month when the first action after the turn is a charge", async () => {
    const user = await createTestUser();
    await chargePriorityMinutes(db(), user.id, free(), new Date("2026-11-10T00:00:00Z"));
    expect(await priorityMinutesLeft(db(), user.id, "free", NOV)).toBe(0);
    await chargePriorityMinutes(db(), user.id, 5, DEC);
    expect((await stored(user.id)).priorityMinutes).toBe(free() - 5);
    expect((await stored(user.id)).priorityResetAt?.toISOString()).toBe("2027-01-01T00:00:00.000Z");
  });

  it("counts every one of many concurrent charges across the month turn exactly once", async () => {
    const user = await createTestUser();
    await chargePriorityMinutes(db(), user.id, 30, new Date("2026-11-10T00:00:00Z"));
    await Promise.all(Array.from({ length: 8 }, () => chargePriorityMinutes(db(), user.id, 1, DEC)));
    expect(await priorityMinutesLeft(db(), user.id, "free", DEC)).toBe(free() - 8);
  });

  it("an admin override lasts for the month it was set in, then the plan allowance returns", async () => {
    const user = await createTestUser();
    await setPriorityMinutes(user.id, 5000);
    const now = new Date();
    expect(await priorityMinutesLeft(db(), user.id, "free", now)).toBe(5000);
    expect(await priorityMinutesLeft(db(), user.id, "free", nextPriorityReset(now))).toBe(free());
  });

  it("keeps a balance stored before the refill existed (no stamp) instead of refilling it", async () => {
    const user = await createTestUser();
    await db().user.update({ where: { id: user.id }, data: { priorityMinutes: 3, priorityResetAt: null } });
    expect(await priorityMinutesLeft(db(), user.id, "free", NOV)).toBe(3);
    expect(await priorityMinutesLeft(db(), user.id, "free", DEC)).toBe(free());
  });

  it("GET /users/@me reports the refilled balance and the next reset", async () => {
    const user = await createTestUser();
    // The balance belongs to a month that has ended: the read refills it.
    await db().user.update({
      where: { id: user.id },
      data: { priorityMinutes: 0, priorityResetAt: new Date("2020-02-01T00:00:00Z") },
    });
    const me = await api("/users/@me", { key: user.apiKey });
    expect(me.status).toBe(200);
    const priority = me.body.user?.limits?.priority ?? me.body.limits?.priority;
    expect(priority.minutes_left).toBe(free());
    expect(priority.resets_at).toBe(nextPriorityReset().toISOString());
    expect((await stored(user.id)).priorityResetAt?.toISOString()).toBe(nextPriorityReset().toISOString());
  });
});
