/**
 * TRUST_PROXY and TRUST_PROXY_HEADER, parsed (docs/operations.md, "Client addresses behind
 * proxies"); lib/http/client-ip.ts applies them. The address-range list is the recommended
 * form (issue 39 §4): a client that reaches the port directly is not believed.
 */
import { isIP } from "node:net";

export type TrustRule =
  | { kind: "off" }
  | { kind: "leftmost" }
  | { kind: "hops"; hops: number }
  | { kind: "ranges"; ranges: readonly TrustedRange[] };

export interface TrustedRange {
  address: string;
  prefix: number;
  family: "ipv4" | "ipv6";
}

export type TrustProxy = TrustRule & { header?: string };

export const NAMED: Record<string, string[]> = {
  loopback: ["127.0.0.0/8", "::1/128"],
  linklocal: ["169.254.0.0/16", "fe80::/10"],
  uniquelocal: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
};

function parseRange(text: string): TrustedRange {
  const [address, prefixText, extra] = text.split("/");
  const version = isIP(address);
  if (!version || extra !== undefined) throw new Error(`TRUST_PROXY: "${text}" is not an address or address range`);
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText ?? String(max)) || prefix > max) throw new Error(`TRUST_PROXY: "${text}" has a bad prefix length`);
  return { address: address.toLowerCase(), prefix, family: version === 4 ? "ipv4" : "ipv6" };
}

/** A value it cannot read is an error at start-up, not a silent "off". */
export function parseTrustProxy(value: string | undefined, header?: string): TrustProxy {
  const v = (value ?? "").trim();
  const withHeader = (rule: TrustRule): TrustProxy => {
    const name = header?.trim().toLowerCase();
    if (name && !/^[a-z0-9-]+$/.test(name)) throw new Error(`TRUST_PROXY_HEADER: "${header}" is not a header name`);
    return name && rule.kind !== "off" ? { ...rule, header: name } : rule;
  };
  if (v === "" || /^(0|false|no|off)$/i.test(v)) return { kind: "off" };
  if (/^(1|true|yes|on)$/i.test(v)) return withHeader({ kind: "leftmost" });
  const hops = /^hops:(\d{1,2})$/i.exec(v);
  if (hops) {
    const n = Number(hops[1]);
    if (n < 1) throw new Error("TRUST_PROXY: hops:<n> needs n of at least 1");
    return withHeader({ kind: "hops", hops: n });
  }
  // `cidr:<list>` names the recommended form explicitly; the bare list means the same.
  const ranges = v
    .replace(/^cidr:/i, "")
    .split(",")
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean)
    .flatMap((item) => (NAMED[item] ?? [item]).map(parseRange));
  return withHeader({ kind: "ranges", ranges });
}
