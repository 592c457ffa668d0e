/** Whether a Host may be a custom link domain (only such get `/{code}` rewritten; the page then checks ownership). */
import { isLinkDomainHost } from "@/lib/users/link-domain";

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
