/** Relay PATCH /users/@me (docs/profiles.md): the request schema checks lengths; here values are normalised and the database rules applied. */
import { db } from "@/lib/db/client";
import { checkDefaultDomain } from "@/lib/domains/domains";
import { DomainError } from "@/lib/errors";
import { isUniqueViolation } from "@/lib/prisma-support";
import { normalizeLinkDomain } from "./link-domain";

export const NICKNAME_MAX_LENGTH = 32;
export const BIO_MAX_LENGTH = 200;
/** In UTF-8 bytes: colours and a few settings, not a store. */
export const THEME_MAX_BYTES = 4096;

export interface ProfileChanges {
  nickname?: string | null;
  bio?: string | null;
  /** Undefined leaves the theme alone; null clears it. */
  theme?: unknown;
  linkDomain?: string | null;
  /** One of the domains offered to the account (docs/domains.md); null goes back to the default. */
  defaultDomain?: string | null;
}

interface UserUpdate {
  nickname?: string | null;
  bio?: string | null;
  theme?: string | null;
  linkDomain?: string | null;
  linkDomainVerifiedAt?: null;
  provenLinkDomain?: null;
  defaultDomain?: string | null;
}

const cleared = (value: string | null | undefined): string | null | undefined =>
  value === undefined ? undefined : value === null ? null : value.trim() || null;

export function themeText(theme: unknown): string | null {
  if (theme === null) return null;
  const text = JSON.stringify(theme);
  if (text === undefined) throw new DomainError("invalid_request", "theme must be a JSON value.");
  if (Buffer.byteLength(text, "utf8") > THEME_MAX_BYTES) {
    throw new DomainError("invalid_request", `theme must be at most ${THEME_MAX_BYTES} bytes as JSON.`);
  }
  return text;
}

export async function updateProfile(userId: string, changes: ProfileChanges): Promise<void> {
  const data: UserUpdate = {};
  if (changes.nickname !== undefined) data.nickname = cleared(changes.nickname);
  if (changes.bio !== undefined) data.bio = cleared(changes.bio);
  if (changes.theme !== undefined) data.theme = themeText(changes.theme);
  if (changes.linkDomain !== undefined) {
    const text = cleared(changes.linkDomain);
    data.linkDomain = text ? normalizeLinkDomain(text) : null;
    if (data.linkDomain) await assertLinkDomainFree(userId, data.linkDomain);
    // A new domain waits for its DNS proof (lib/domains/link-domain-proof.ts); the same one stays proven.
    const current = await db().user.findUnique({ where: { id: userId }, select: { linkDomain: true } });
    if (current?.linkDomain !== data.linkDomain) {
      data.linkDomainVerifiedAt = null;
      data.provenLinkDomain = null;
    }
  }
  if (changes.defaultDomain !== undefined) data.defaultDomain = await checkDefaultDomain(userId, changes.defaultDomain);
  if (Object.keys(data).length === 0) return;
  try {
    await db().user.update({ where: { id: userId }, data });
  } catch (error) {
    // Two users claiming one domain at once: the unique index decides, same answer as above.
    if (isUniqueViolation(error)) throw linkDomainTaken();
    throw error;
  }
}

const linkDomainTaken = () => new DomainError("invalid_request", "That link_domain is already used by another account.");

/**
 * Only a proven domain is taken; pending claims are per user (issue 39 §4), each proven only by
 * the TXT value it alone was shown (docs/link-domains.md). The unique index settles two proofs racing.
 */
async function assertLinkDomainFree(userId: string, linkDomain: string): Promise<void> {
  const owner = await db().user.findFirst({
    where: { linkDomain, linkDomainVerifiedAt: { not: null }, id: { not: userId } },
    select: { id: true },
  });
  if (owner) throw linkDomainTaken();
}
