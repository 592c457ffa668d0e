/**
 * Custom link domains: with one set, a post's share URL is `https://{domain}/{code}`
 * (lib/presenters/posts.ts). The user points the domain's DNS at this service; we
 * cannot check DNS at save time, so the value is checked for being a plain public
 * host name that nobody else uses.
 */
import { domainToASCII } from "node:url";
import { env } from "@/lib/config/env";
import { DomainError } from "@/lib/errors";

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
/** A top-level label: letters, or an IDN in punycode. Rules out IP addresses ("1.2.3.4"). */
const TOP_LABEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;
export const LINK_DOMAIN_MAX_LENGTH = 253;

const invalid = (message: string) => new DomainError("invalid_request", message);

/**
 * Host names of this service itself: a link domain pointing at them would make no sense.
 * `localhost` needs no place here: a single label is never a public host name.
 */
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

/**
 * The host rule of link domains, for a lower-case ASCII (punycode) name without a trailing
 * dot: at least two labels, each a DNS label, a top label of letters (so no IP address and
 * no `localhost`), at most 253 characters, and none of this service's own hosts. Saving a
 * link domain (normalizeLinkDomain) and routing a request by its Host (lib/web/link-host.ts)
 * both use it, so a Host that passes is one a user could have saved.
 */
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

/**
 * The canonical form of a link domain (lower-case, punycode, no trailing dot), or
 * invalid_request naming what is wrong. A URL with a scheme, a path or a port is refused
 * rather than cut down, so the user sees exactly what will be stored.
 */
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
