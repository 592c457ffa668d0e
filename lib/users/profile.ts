/** Reading profiles (docs/profiles.md); lib/presenters/users.ts shapes the JSON. */
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { isPlan, type Plan } from "@/lib/plans";
import { priorityMinutesLeft } from "@/lib/usage/priority";
import { quotaFor, weeklyUsage, type WeeklyUsage } from "@/lib/usage/quota";
import { userSubject } from "@/lib/usage/window";

export interface UserRecord {
  id: string;
  username: string;
  displayUsername: string;
  email: string | null;
  nickname: string | null;
  bio: string | null;
  avatarKey: string | null;
  bannerKey: string | null;
  theme: string | null;
  plan: string;
  suspended: boolean;
  verified: boolean;
  staff: boolean;
  partner: boolean;
  translator: boolean;
  bugHunterTier: number;
  linkDomain: string | null;
  /** Null: pending (lib/domains/link-domain-proof.ts). */
  linkDomainVerifiedAt: Date | null;
  /** The domain new links are built on (docs/domains.md); null: the instance's default. */
  defaultDomain: string | null;
  quotaOverride: bigint | null;
  priorityMinutes: number | null;
  followerCount: number;
  followingCount: number;
  uploadCount: number;
  createdAt: Date;
}

export interface ProfileRecord {
  user: UserRecord;
  following: boolean;
  blocking: boolean;
}

export interface OwnAccountRecord extends ProfileRecord {
  plan: Plan;
  usage: WeeklyUsage;
  priorityMinutesLeft: number;
}

export const planOf = (user: { plan: string }): Plan => (isPlan(user.plan) ? user.plan : "free");

export async function findUser(ref: string): Promise<UserRecord | null> {
  const byId = await db().user.findUnique({ where: { id: ref } });
  if (byId) return byId;
  return db().user.findUnique({ where: { username: ref.toLowerCase() } });
}

async function relation(viewerId: string | null, targetId: string): Promise<{ following: boolean; blocking: boolean }> {
  if (!viewerId || viewerId === targetId) return { following: false, blocking: false };
  const [follow, block] = await Promise.all([
    db().follow.findUnique({
      where: { followerId_followingId: { followerId: viewerId, followingId: targetId } },
      select: { createdAt: true },
    }),
    db().block.findUnique({ where: { blockerId_blockedId: { blockerId: viewerId, blockedId: targetId } }, select: { createdAt: true } }),
  ]);
  return { following: !!follow, blocking: !!block };
}

/** 404 when unknown, 403 suspended (with the username). */
export async function getProfile(viewerId: string | null, ref: string): Promise<ProfileRecord> {
  const user = await findUser(ref);
  if (!user) throw new DomainError("not_found", "No such user.");
  if (user.suspended) {
    throw new DomainError("suspended", "This user is suspended.", undefined, { username: user.displayUsername });
  }
  return { user, ...(await relation(viewerId, user.id)) };
}

export async function getOwnAccount(userId: string): Promise<OwnAccountRecord> {
  const user = await db().user.findUnique({ where: { id: userId } });
  if (!user) throw new DomainError("unauthorized", "The account behind this key no longer exists.");
  const plan = planOf(user);
  const usage = await weeklyUsage(userSubject(user.id), quotaFor(plan, user.quotaOverride));
  return {
    user,
    following: false,
    blocking: false,
    plan,
    usage,
    priorityMinutesLeft: await priorityMinutesLeft(db(), user.id, plan),
  };
}
