/**
 * Proof that a link domain is the user's (docs/link-domains.md): a TXT record holding an HMAC
 * of user id and domain (nothing stored; another account gets another token). Until seen, the
 * domain is pending and serves nothing.
 */
import { createHmac } from "node:crypto";
import { Resolver } from "node:dns/promises";
import { env } from "@/lib/config/env";
import { signingSecret } from "@/lib/crypto/signing";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { isUniqueViolation } from "@/lib/prisma-support";

const provenElsewhere = () => new DomainError("invalid_request", "That link_domain is already used by another account.");

export const proofRecordName = (domain: string): string => `_mediahost.${domain}`;

export function proofRecordValue(userId: string, domain: string): string {
  const token = createHmac("sha256", signingSecret()).update(`link-domain-proof\n${userId}\n${domain}`).digest("base64url").slice(0, 32);
  return `mediahost-verify=${token}`;
}

export function activeLinkDomain(user: { linkDomain: string | null; linkDomainVerifiedAt: Date | null } | null | undefined): string | null {
  return user?.linkDomain && user.linkDomainVerifiedAt ? user.linkDomain : null;
}

function resolver(): Resolver {
  const dns = new Resolver({ timeout: 3000, tries: 2 });
  const configured = env().DNS_RESOLVER;
  if (configured) dns.setServers([configured]);
  return dns;
}

async function txtAt(name: string): Promise<string[]> {
  try {
    return (await resolver().resolveTxt(name)).map((chunks) => chunks.join(""));
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOTFOUND" || code === "ENODATA") return [];
    throw new DomainError("unavailable", "The DNS lookup did not answer; try again in a minute.", undefined, undefined, 60);
  }
}

/** Marks it proven, or says what is missing. */
export async function verifyLinkDomain(userId: string): Promise<{ domain: string; verifiedAt: Date }> {
  const user = await db().user.findUniqueOrThrow({ where: { id: userId }, select: { linkDomain: true, linkDomainVerifiedAt: true } });
  const domain = user.linkDomain;
  if (!domain) throw new DomainError("invalid_request", "Set a link_domain first.");
  if (user.linkDomainVerifiedAt) return { domain, verifiedAt: user.linkDomainVerifiedAt };
  // Another account proved it first (pending claims are per user: issue 39 §4).
  const taken = await db().user.findFirst({
    where: { linkDomain: domain, linkDomainVerifiedAt: { not: null }, id: { not: userId } },
    select: { id: true },
  });
  if (taken) throw provenElsewhere();
  const expected = proofRecordValue(userId, domain);
  if (!(await txtAt(proofRecordName(domain))).includes(expected)) {
    throw new DomainError("invalid_request", `No TXT record ${proofRecordName(domain)} with the value ${expected} was found yet.`);
  }
  const verifiedAt = new Date();
  // Only if the domain was not changed meanwhile; the unique index on provenLinkDomain lets one account prove it.
  let count: number;
  try {
    ({ count } = await db().user.updateMany({
      where: { id: userId, linkDomain: domain },
      data: { linkDomainVerifiedAt: verifiedAt, provenLinkDomain: domain },
    }));
  } catch (error) {
    if (isUniqueViolation(error)) throw provenElsewhere();
    throw error;
  }
  if (count === 0) throw new DomainError("invalid_request", "The link_domain changed meanwhile; check the new one.");
  return { domain, verifiedAt };
}
