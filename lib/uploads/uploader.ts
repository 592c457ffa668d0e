/** Who an upload is for: the account (or team) whose gallery and quota it uses. */
import type { Principal } from "../auth/principal";
import { db } from "../db/client";
import { planLimits, type Plan, type PlanLimits } from "../plans";
import { priorityMinutesLeft } from "../usage/priority";
import { quotaFor } from "../usage/quota";
import { teamSubject, userSubject } from "../usage/window";
import type { QuotaAccount } from "./process";

export interface Uploader {
  /** The author: the key's user, or the team owner for team keys. */
  userId: string;
  teamId: string | null;
  limits: PlanLimits;
  account: QuotaAccount;
  priorityMinutesLeft: number;
}

export async function uploaderFor(principal: Principal): Promise<Uploader> {
  if (principal.kind === "team") {
    const team = await db().team.findUniqueOrThrow({ where: { id: principal.team.id }, select: { quotaOverride: true } });
    const owner = await db().user.findUniqueOrThrow({ where: { id: principal.owner.id }, select: { priorityMinutes: true } });
    const limits = planLimits("team");
    return {
      userId: principal.owner.id,
      teamId: principal.team.id,
      limits,
      account: { subject: teamSubject(principal.team.id), quota: quotaFor("team", team.quotaOverride) },
      priorityMinutesLeft: await priorityMinutesLeft(db(), principal.owner.id, "team"),
    };
  }
  const user = await db().user.findUniqueOrThrow({
    where: { id: principal.user.id },
    select: { quotaOverride: true, priorityMinutes: true },
  });
  const plan: Plan = principal.user.plan;
  const limits = planLimits(plan);
  return {
    userId: principal.user.id,
    teamId: null,
    limits,
    account: { subject: userSubject(principal.user.id), quota: quotaFor(plan, user.quotaOverride) },
    priorityMinutesLeft: await priorityMinutesLeft(db(), principal.user.id, plan),
  };
}
