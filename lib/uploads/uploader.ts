/** Who an upload is for: the account (or team) whose gallery and quota it uses; priority minutes are read only when needed. */
import type { AccountSummary, Principal, TeamSummary } from "@/lib/types/principal";
import { db } from "@/lib/db/client";
import { planLimits, type PlanLimits } from "@/lib/plans";
import { priorityMinutesLeft } from "@/lib/usage/priority";
import { quotaFor } from "@/lib/usage/quota";
import { teamSubject, userSubject } from "@/lib/usage/window";
import type { QuotaAccount } from "./process";
import { settingsSource } from "@/lib/config/stored-settings";

export interface Uploader {
  userId: string;
  teamId: string | null;
  /** The app whose key uploads (app-scoped webhooks, docs/webhooks.md); null for other keys. */
  appId: string | null;
  limits: PlanLimits;
  account: QuotaAccount;
  priorityMinutesLeft: () => Promise<number>;
}

export function uploaderFor(principal: Principal): Uploader {
  const team = principal.kind === "team" ? principal.team : null;
  const user = principal.kind === "team" ? principal.owner : principal.user;
  return uploaderOf(user, team, principal.kind === "app" ? principal.appId : null);
}

/** A guest's upload into someone's folder (docs/guest-uploads.md) is theirs, on their plan. */
export function accountUploader(user: Pick<AccountSummary, "id" | "plan" | "quotaOverride">): Uploader {
  return uploaderOf(user, null, null);
}

function uploaderOf(
  user: Pick<AccountSummary, "id" | "plan" | "quotaOverride">,
  team: Pick<TeamSummary, "id" | "quotaOverride"> | null,
  appId: string | null,
): Uploader {
  const plan = team ? "team" : user.plan;
  let minutes: Promise<number> | undefined;
  return {
    userId: user.id,
    teamId: team?.id ?? null,
    appId,
    limits: planLimits(plan, settingsSource()),
    account: team
      ? { subject: teamSubject(team.id), quota: quotaFor("team", team.quotaOverride) }
      : { subject: userSubject(user.id), quota: quotaFor(plan, user.quotaOverride) },
    priorityMinutesLeft: () => (minutes ??= priorityMinutesLeft(db(), user.id, plan)),
  };
}
