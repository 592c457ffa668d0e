/**
 * The `DOMAINS` setting (docs/domains.md): the host names this instance answers on besides
 * PUBLIC_URL's, each with what it serves. A list separated by commas or spaces of
 * `[http(s)://]name[:port][=what]`, `what` being `all` (the default) or `pages`, `files`
 * and `links` joined with `+`; a bare name is https. For example
 * `img.example.com, cdn.example.com=files, go.example.com=links+pages`.
 */

/** What a domain may serve: share pages (and folder pages, oEmbed, their assets), files under /cdn, short links under /s. */
export const DOMAIN_SERVES = ["pages", "files", "links"] as const;
export type DomainServes = (typeof DOMAIN_SERVES)[number];

export interface InstanceDomain {
  /** Lower-case host name, no port: what a request's Host is compared with. */
  name: string;
  /** Scheme, name and port: the base of the URLs built on it. */
  origin: string;
  /** True when it serves everything PUBLIC_URL's host does (the API, Relay and the dashboard too). */
  all: boolean;
  serves: readonly DomainServes[];
}

const NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

function parseServes(text: string | undefined, entry: string): { all: boolean; serves: DomainServes[] } {
  if (text === undefined || text.toLowerCase() === "all") return { all: true, serves: [...DOMAIN_SERVES] };
  const serves = text.toLowerCase().split("+");
  for (const what of serves) {
    if (!(DOMAIN_SERVES as readonly string[]).includes(what)) {
      throw new Error(`"${entry}": what a domain serves is all, or ${DOMAIN_SERVES.join(", ")} joined with +`);
    }
  }
  return { all: false, serves: DOMAIN_SERVES.filter((what) => serves.includes(what)) };
}

function parseEntry(entry: string): InstanceDomain {
  const [address, what, extra] = entry.split("=");
  if (extra !== undefined) throw new Error(`"${entry}" has more than one =`);
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(address) ? address : `https://${address}`);
  } catch {
    throw new Error(`"${entry}" is not a host name`);
  }
  const name = url.hostname.toLowerCase().replace(/\.$/, "");
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.pathname !== "/" || url.search || url.username || !NAME.test(name)) {
    throw new Error(`"${entry}" must be a host name, optionally with http:// or https:// and a port`);
  }
  return { name, origin: `${url.protocol}//${url.host.toLowerCase().replace(/\.$/, "")}`, ...parseServes(what, entry) };
}

/** The list, or an Error naming the bad entry. "" is the empty list (the feature is off). */
export function parseDomains(text: string): InstanceDomain[] {
  const domains: InstanceDomain[] = [];
  for (const entry of text.split(/[\s,]+/).filter(Boolean)) {
    const domain = parseEntry(entry);
    if (domains.some((d) => d.name === domain.name)) throw new Error(`"${domain.name}" is listed twice`);
    domains.push(domain);
  }
  return domains;
}

/** The setting's canonical text, as the console stores it. */
export function formatDomains(domains: readonly InstanceDomain[]): string {
  return domains
    .map((d) => {
      const address = d.origin.startsWith("https://") ? d.origin.slice("https://".length) : d.origin;
      return d.all ? address : `${address}=${d.serves.join("+")}`;
    })
    .join(", ");
}
