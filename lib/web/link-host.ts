/**
 * Whether a request's Host may be a custom link domain: the link-domain host rule of
 * lib/users/link-domain.ts (`isLinkDomainHost`), the one a saved domain passed. Only such
 * hosts get `/{code}` rewritten to the share page (proxy.ts); the page then checks that the
 * post's author owns the domain.
 */
import { isLinkDomainHost } from "@/lib/users/link-domain";

/** The host name (no port, lower-case) of a Host header value, or null when malformed. */
export function hostName(hostHeader: string | null): string | null {
  if (!hostHeader) return null;
  try {
    return new URL(`http://${hostHeader}`).hostname.toLowerCase().replace(/\.$/, "");
  } catch {
    return null;
  }
}

/** The Host's name when it may be a link domain, else null. */
export function isPossibleLinkDomain(hostHeader: string | null): string | null {
  const host = hostName(hostHeader);
  return host && isLinkDomainHost(host) ? host : null;
}
