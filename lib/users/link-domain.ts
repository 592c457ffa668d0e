/** Custom link domains (docs/link-domains.md): DNS cannot be checked at save time, so a plain public host name nobody else uses. */
import { domainToASCII } from "node:url";
import { env } from "@/lib/config/env";
import { DomainError } from "@/lib/errors";

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
/** Letters, or punycode: rules out IP addresses. */
const TOP_LABEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;
export const LINK_DOMAIN_MAX_LENGTH = 253;

const invalid = (message: string) => new DomainError("invalid_request", message);

/** This service's own hosts (`localhost` needs no place: a single label is never public). */
function ownHosts(): Set<string> {
  const e = env();
  const hosts = new Set<string>();
  for (const url of [e.PUBLIC_URL, e.apiUrl, e.relayUrl, e.cdnUrl, e.shareUrl, e.shortUrl]) {
    try {
      hosts.add(new URL(url).hostname.toLowerCase());
    } catch {
      // A malformed URL setting is reported where it is used; nothing to reserve here.
    }
  }
  return hosts;
}

/** Shared by saving a link domain and routing a request by its Host, so a Host that passes is one a user could have saved. */
export function isLinkDomainHost(ascii: string): boolean {
  return isPublicHostName(ascii) && !ownHosts().has(ascii);
}

function isPublicHostName(ascii: string): boolean {
  const labels = ascii.split(".");
  return (
    ascii.length <= LINK_DOMAIN_MAX_LENGTH &&
    labels.length >= 2 &&
    labels.every((label) => LABEL.test(label)) &&
    TOP_LABEL.test(labels[labels.length - 1])
  );
}

/** Canonical form, or invalid_request; a URL with a scheme, path or port is refused rather than cut down. */
export function normalizeLinkDomain(input: string): string {
  const raw = input.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    throw invalid("link_domain is a host name such as links.example.com, without https://.");
  }
  if (/[/?#@:\s]/.test(raw)) {
    throw invalid("link_domain is a host name such as links.example.com, without a path, port or spaces.");
  }
  // Internationalised names are stored in punycode, the form DNS and TLS certificates use.
  const ascii = domainToASCII(raw.replace(/\.$/, "").toLowerCase());
  if (!ascii) throw invalid("link_domain is not a valid host name.");
  if (!isPublicHostName(ascii)) throw invalid("link_domain must be a public host name such as links.example.com.");
  if (ownHosts().has(ascii)) throw invalid("link_domain cannot be one of this service's own host names.");
  return ascii;
}
