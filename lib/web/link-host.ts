/**
 * Whether a request's Host may be a custom link domain (lib/users/link-domain.ts): a
 * public host name (letters in the top label, so no IP address and no "localhost") that
 * is none of this service's own hosts. Only such hosts get `/{code}` rewritten to the
 * share page (proxy.ts); the page then checks that the post's author owns the domain.
 */
import { env } from "../config/env";

const TOP_LABEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

function ownHosts(): Set<string> {
  const e = env();
  const hosts = new Set<string>();
  for (const url of [e.PUBLIC_URL, e.apiUrl, e.relayUrl, e.cdnUrl, e.shareUrl, e.shortUrl]) {
    try {
      hosts.add(new URL(url).hostname.toLowerCase());
    } catch {
      // A malformed URL setting is reported where it is used.
    }
  }
  return hosts;
}

/** The host name (no port, lower-case) of a Host header value, or null when malformed. */
export function hostName(hostHeader: string | null): string | null {
  if (!hostHeader) return null;
  try {
    return new URL(`http://${hostHeader}`).hostname.toLowerCase().replace(/\.$/, "");
  } catch {
    return null;
  }
}

export function isPossibleLinkDomain(hostHeader: string | null): string | null {
  const host = hostName(hostHeader);
  if (!host) return null;
  const labels = host.split(".");
  if (labels.length < 2 || !TOP_LABEL.test(labels[labels.length - 1])) return null;
  return ownHosts().has(host) ? null : host;
}
