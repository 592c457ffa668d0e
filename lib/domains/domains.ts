/**
 * Domains (docs/domains.md): which domains an account may build its links on. With DOMAINS empty
 * (the default) nothing here changes a link and the header is not read.
 */
import type { DomainServes, InstanceDomain } from "@/lib/config/domains";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { activeLinkDomain } from "./link-domain-proof";
import { bareHost } from "./own-hosts";

export const DOMAIN_HEADER = "x-mediahost-domain";

export interface DomainUser {
  linkDomain: string | null;
  linkDomainVerifiedAt: Date | null;
  defaultDomain: string | null;
}

export interface OfferedDomain {
  name: string;
  /** `main`: the instance's configured URLs; `instance`: one of DOMAINS; `link_domain`: the account's own. */
  kind: "main" | "instance" | "link_domain";
  serves: readonly DomainServes[];
  origin: string | null;
}

export const domainsOn = (): boolean => env().DOMAINS.length > 0;

const mainName = (): string => bareHost(new URL(env().PUBLIC_URL).hostname);

/** A domain name as given in a header or a body: trimmed, lower case, no port or trailing dot; null when it cannot be one. */
export function domainName(text: string): string | null {
  try {
    return bareHost(new URL(`http://${text.trim()}`).hostname) || null;
  } catch {
    return null;
  }
}

export function offeredDomains(user: Omit<DomainUser, "defaultDomain"> | null): OfferedDomain[] {
  const main = mainName();
  const offered: OfferedDomain[] = [{ name: main, kind: "main", serves: ["pages", "files", "links"], origin: null }];
  for (const d of env().DOMAINS as readonly InstanceDomain[]) {
    if (d.name !== main) offered.push({ name: d.name, kind: "instance", serves: d.serves, origin: d.origin });
  }
  const link = activeLinkDomain(user);
  if (link && !offered.some((d) => d.name === link)) offered.push({ name: link, kind: "link_domain", serves: ["pages"], origin: null });
  return offered;
}

/** 400 naming `what` (the header or field) when not offered. */
function pickOffered(user: Omit<DomainUser, "defaultDomain"> | null, asked: string, what: string): OfferedDomain {
  const name = domainName(asked);
  const found = name ? offeredDomains(user).find((d) => d.name === name) : undefined;
  if (!found)
    throw new DomainError(
      "invalid_request",
      `${what} "${asked.trim()}" is not a domain offered to this account (GET /domains lists them).`,
    );
  return found;
}

const linkDomainColumns = { linkDomain: true, linkDomainVerifiedAt: true } as const;

/** Null when absent or DOMAINS is empty (the header is then not read); 400 when not offered to the uploader. */
export async function chooseUploadDomain(userId: string, asked: string | null): Promise<string | null> {
  if (!domainsOn() || asked === null || asked.trim() === "") return null;
  const user = await db().user.findUnique({ where: { id: userId }, select: linkDomainColumns });
  return pickOffered(user, asked, `Header ${DOMAIN_HEADER}`).name;
}

export async function checkDefaultDomain(userId: string, asked: string | null): Promise<string | null> {
  if (asked === null || asked.trim() === "") return null;
  if (!domainsOn()) throw new DomainError("invalid_request", "default_domain: this instance offers no other domains.");
  const user = await db().user.findUnique({ where: { id: userId }, select: linkDomainColumns });
  return pickOffered(user, asked, "default_domain").name;
}

export async function listOfferedDomains(userId: string): Promise<OfferedDomainList> {
  const user = await db().user.findUnique({ where: { id: userId }, select: { ...linkDomainColumns, defaultDomain: true } });
  const domains = offeredDomains(user);
  // The one links are built on without a choice: the default if still offered, else the link domain, else the instance's own.
  const inUse = chosenDomain(null, user)?.name ?? domains.find((d) => d.kind === "link_domain")?.name ?? domains[0].name;
  return { domains, defaultDomain: user?.defaultDomain ?? null, inUse };
}

export interface OfferedDomainList {
  domains: OfferedDomain[];
  defaultDomain: string | null;
  inUse: string;
}

/** The domain a record's links are built on: `chosen`, else the author's default; null when none applies (any more). */
function chosenDomain(chosen: string | null, user: DomainUser | null): OfferedDomain | null {
  const name = chosen ?? user?.defaultDomain ?? null;
  if (!name || !domainsOn()) return null;
  return offeredDomains(user).find((d) => d.name === name) ?? null;
}

type LinkedPost = { code: string; domain: string | null; user: DomainUser | null };

/** A post's share URL: on its domain when that serves pages, else as before (link domain, else SHARE_URL). */
export function postShareUrl(post: LinkedPost): string {
  const domain = chosenDomain(post.domain, post.user);
  if (domain?.kind === "instance" && domain.serves.includes("pages")) return `${domain.origin}/p/${post.code}`;
  if (domain?.kind === "link_domain") return `https://${domain.name}/${post.code}`;
  const link = domain?.kind === "main" ? null : activeLinkDomain(post.user);
  return link ? `https://${link}/${post.code}` : `${env().shareUrl}/${post.code}`;
}

/** The base of a post's file URLs: its domain's `/cdn` when that serves files, else CDN_URL. */
export function postCdnBase(post: Omit<LinkedPost, "code">): string {
  const domain = chosenDomain(post.domain, post.user);
  return domain?.kind === "instance" && domain.serves.includes("files") ? `${domain.origin}/cdn` : env().cdnUrl;
}

/** The origin of share pages on `shareUrl`'s domain when it is one of DOMAINS (oEmbed discovery there), else PUBLIC_URL. */
export function pagesOrigin(shareUrl: string): string {
  const name = domainName(new URL(shareUrl).host);
  const domain = env().DOMAINS.find((d) => d.name === name && d.serves.includes("pages"));
  return domain ? domain.origin : env().PUBLIC_URL;
}
