/** `UserRef`, `Profile`, `OwnAccount` and the users area's replies: the only place their field names are chosen. */
import { z } from "zod";
import { activeLinkDomain, proofRecordName, proofRecordValue } from "@/lib/domains/link-domain-proof";
import { env } from "@/lib/config/env";
import type { OfferedDomainList } from "@/lib/domains/domains";
import { planLimits } from "@/lib/plans";
import type { UsageHistory } from "@/lib/usage/history";
import { nextPriorityReset } from "@/lib/usage/priority";
import { planOf, type OwnAccountRecord, type ProfileRecord, type UserRecord } from "@/lib/users/profile";
import { iso } from "./shared";
import { settingsSource } from "@/lib/config/stored-settings";

const plan = z.enum(["free", "plus", "ultra"]);

export const UserRef = z
  .object({
    id: z.string(),
    username: z.string(),
    nickname: z.string(),
    avatar: z.url(),
    verified: z.boolean(),
    plan,
  })
  .meta({ id: "UserRef" });

export const Profile = UserRef.extend({
  follower_count: z.number().int(),
  following_count: z.number().int(),
  following: z.boolean(),
  blocking: z.boolean(),
  upload_count: z.number().int(),
  created_at: iso,
  bio: z.string().nullable(),
  banner: z.url().nullable(),
  staff: z.boolean(),
  partner: z.boolean(),
  translator: z.boolean(),
  bug_hunter_tier: z.number().int(),
}).meta({ id: "Profile" });

const LimitEntry = z.object({ resets_at: iso });

export const OwnAccount = Profile.extend({
  email: z.string().nullable(),
  theme: z.unknown().nullable(),
  link_domain: z.string().nullable(),
  link_domain_verified: z.boolean().describe("The link domain's DNS proof was seen; share URLs use it only then"),
  link_domain_proof: z
    .object({ name: z.string(), value: z.string() })
    .nullable()
    .describe("The TXT record that proves the link domain (docs/link-domains.md); null without one"),
  default_domain: z.string().nullable().describe("The domain new links are built on (docs/domains.md); null: the instance's default"),
  suspended: z.boolean(),
  key_has_uploads_access: z.boolean(),
  limits: z
    .object({
      usage: LimitEntry.extend({
        quota: z.number().int().describe("Weekly quota in bytes"),
        used: z.number().int(),
        remaining: z.number().int(),
      }),
      priority: LimitEntry.extend({
        minutes_left: z.number().int().describe("Priority (adaptive streaming) minutes left"),
        minutes: z.number().int().describe("Minutes the plan grants per month"),
      }),
    })
    .describe("Each entry has resets_at"),
  upload_limits: z.object({
    file_bytes: z.number().int().describe("Largest file per upload"),
    request_bytes: z.number().int().describe("Largest upload request"),
  }),
}).meta({ id: "OwnAccount" });

export const Domain = z
  .object({
    name: z.string().describe("The value of x-mediahost-domain and default_domain"),
    kind: z
      .enum(["main", "instance", "link_domain"])
      .describe("main: this instance's own name; instance: one the operator lists; link_domain: the caller's proven link domain"),
    serves: z.array(z.enum(["pages", "files", "links"])).describe("The links built on it: share pages, file URLs, short links"),
    default: z.boolean().describe("The one links are built on when an upload names none"),
  })
  .meta({ id: "Domain" });

/** GET /domains (docs/domains.md). */
export const DomainList = z.object({ domains: z.array(Domain), default_domain: z.string().nullable() });

export function domainListView(list: OfferedDomainList): z.infer<typeof DomainList> {
  return {
    domains: list.domains.map((d) => ({ name: d.name, kind: d.kind, serves: [...d.serves], default: d.name === list.inUse })),
    default_domain: list.defaultDomain,
  };
}

/** GET /users/{id}: the caller's own account for `@me` (or its own id), else a profile. */
export const GetUserReply = z.union([OwnAccount, Profile]);

/** The caller's own account after a change of it (Relay PATCH /users/@me, avatar, banner, link domain). */
export const OwnAccountReply = z.object({ user: OwnAccount });
/** The privacy of the account's web and share-sheet uploads (lib/users/upload-privacy.ts); `chosen` false: the operator's default. */
export const UploadPrivacyReply = z.object({
  upload_privacy: z.object({ privacy: z.enum(["public", "unlisted", "private"]), chosen: z.boolean() }),
});

export const UsageHistoryReply = z.object({
  history: z.array(z.object({ day: z.string(), bytes: z.number().int(), upload_count: z.number().int() })),
  stats: z.object({
    total_bytes: z.number().int(),
    upload_count: z.number().int(),
    active_days: z.number().int(),
    current_streak: z.number().int(),
    biggest_day: z.object({ day: z.string(), bytes: z.number().int() }).nullable(),
    window_days: z.number().int(),
  }),
});

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
  const limits = planLimits(record.plan, settingsSource());
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
    default_domain: record.user.defaultDomain,
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

export function usageHistoryView(h: UsageHistory, windowDays: number): z.infer<typeof UsageHistoryReply> {
  return {
    history: h.history.map((d) => ({ day: d.day, bytes: d.bytes, upload_count: d.uploadCount })),
    stats: {
      total_bytes: h.totalBytes,
      upload_count: h.uploadCount,
      active_days: h.activeDays,
      current_streak: h.currentStreak,
      biggest_day: h.biggestDay,
      window_days: windowDays,
    },
  };
}
