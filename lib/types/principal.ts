/** Who a request acts as, resolved from its key. Plain data: no database types leak out. */
import type { Plan } from "@/lib/plans";

export interface AccountSummary {
  id: string;
  username: string;
  plan: Plan;
  suspended: boolean;
  /** Weekly upload quota set by an admin, in bytes; null = the plan's. */
  quotaOverride: number | null;
}

export interface TeamSummary {
  id: string;
  name: string;
  status: "active" | "lapsed";
  ownerId: string;
  /** Null: the team plan's. */
  quotaOverride: number | null;
}

export type Principal =
  | { kind: "app"; user: AccountSummary; appId: string; galleryAccess: boolean }
  /** A Relay session's relay-key: the signed-in user, with full access to their gallery. */
  | { kind: "session"; user: AccountSummary; sessionId: string }
  | { kind: "team"; team: TeamSummary; owner: AccountSummary };

export type PersonalPrincipal = Extract<Principal, { kind: "app" | "session" }>;
export type TeamPrincipal = Extract<Principal, { kind: "team" }>;

/** The personal account behind a principal (a team key's owner for team keys). */
export function accountOf(principal: Principal): AccountSummary {
  return principal.kind === "team" ? principal.owner : principal.user;
}

/** Whether the key may read and change the gallery (GET /posts, edit, delete, add files). */
export function hasGalleryAccess(principal: Principal): boolean {
  return principal.kind !== "app" || principal.galleryAccess;
}
