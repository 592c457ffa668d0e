/** JSON shapes of the replies (./schemas.ts, the OpenAPI documents), built from domain records. The only place field names are chosen. */
import { activeLinkDomain, proofRecordName, proofRecordValue } from "../users/link-domain-proof";
import type { z } from "zod";
import { env } from "../config/env";
import { planLimits } from "../plans";
import { nextPriorityReset } from "../usage/priority";
import { planOf, type OwnAccountRecord, type ProfileRecord, type UserRecord } from "../users/profile";
import type { OwnAccount, Profile, UserRef } from "./schemas";

export const mediaUrl = (key: string) => `${env().cdnUrl}/${key.split("/").map(encodeURIComponent).join("/")}`;
const defaultAvatar = () => `${env().PUBLIC_URL}/default-avatar.svg`;

export function userRef(user: UserRecord): z.infer<typeof UserRef> {
  return {
    id: user.id,
    username: user.displayUsername,
    nickname: user.nickname || user.displayUsername,
    avatar: user.avatarKey ? mediaUrl(user.avatarKey) : defaultAvatar(),
    verified: user.verified,
    plan: planOf(user),
  };
}

export function profile({ user, following, blocking }: ProfileRecord): z.infer<typeof Profile> {
  return {
    ...userRef(user),
    follower_count: user.followerCount,
    following_count: user.followingCount,
    following,
    blocking,
    upload_count: user.uploadCount,
    created_at: user.createdAt.toISOString(),
    bio: user.bio,
    banner: user.bannerKey ? mediaUrl(user.bannerKey) : null,
    staff: user.staff,
    partner: user.partner,
    translator: user.translator,
    bug_hunter_tier: user.bugHunterTier,
  };
}

function parseTheme(theme: string | null): unknown {
  if (theme === null) return null;
  try {
    return JSON.parse(theme);
  } catch {
    return theme;
  }
}

export function ownAccount(record: OwnAccountRecord, keyHasGalleryAccess: boolean): z.infer<typeof OwnAccount> {
  const limits = planLimits(record.plan);
  return {
    ...profile(record),
    plan: record.plan,
    email: record.user.email,
    theme: parseTheme(record.user.theme),
    link_domain: record.user.linkDomain,
    link_domain_verified: activeLinkDomain(record.user) !== null,
    link_domain_proof: record.user.linkDomain
      ? { name: proofRecordName(record.user.linkDomain), value: proofRecordValue(record.user.id, record.user.linkDomain) }
      : null,
    suspended: record.user.suspended,
    key_has_uploads_access: keyHasGalleryAccess,
    limits: {
      usage: {
        quota: record.usage.quota,
        used: record.usage.used,
        remaining: record.usage.remaining,
        resets_at: record.usage.resetsAt.toISOString(),
      },
      priority: {
        minutes_left: record.priorityMinutesLeft,
        minutes: limits.priorityMinutes,
        resets_at: nextPriorityReset().toISOString(),
      },
    },
    upload_limits: { file_bytes: limits.uploadFileBytes, request_bytes: limits.uploadRequestBytes },
  };
}
