/**
 * One host rule for link domains (issue 31 §7): a Host the proxy routes to the share page
 * (lib/web/link-host.ts) is exactly a name a user could have saved as a link domain
 * (lib/users/link-domain.ts), and the other way round.
 */
import { describe, expect, it } from "vitest";
import { isDomainError } from "@/lib/errors";
import { normalizeLinkDomain } from "@/lib/users/link-domain";
import { isPossibleLinkDomain } from "@/lib/web/link-host";

function saveable(host: string): boolean {
  try {
    normalizeLinkDomain(host);
    return true;
  } catch (error) {
    if (!isDomainError(error)) throw error;
    return false;
  }
}

describe("link-domain host rule", () => {
  const hosts = [
    ["links.example.com", true],
    ["a.b.example.co.uk", true],
    ["xn--bcher-kva.example", true],
    ["localhost", false],
    ["intranet", false],
    ["127.0.0.1", false],
    ["10.0.0.1", false],
    ["example.c0m", false],
    ["a_b.example.com", false],
    ["-bad.example.com", false],
    [`${"a".repeat(64)}.example.com`, false],
    [`${"abcdefghi.".repeat(26)}com`, false],
  ] as const;

  it.each(hosts)("%s: routed as a link domain exactly when it could be saved as one (%s)", (host, expected) => {
    expect(saveable(host)).toBe(expected);
    expect(isPossibleLinkDomain(host) !== null).toBe(expected);
  });

  it("refuses the service's own host names both ways", () => {
    const own = new URL(process.env.PUBLIC_URL || "http://localhost:3000").hostname;
    expect(isPossibleLinkDomain(`${own}:8080`)).toBeNull();
    expect(saveable(own)).toBe(false);
  });

  it("reads the Host header's name: port and trailing dot dropped, case folded", () => {
    expect(isPossibleLinkDomain("Links.Example.COM.:8443")).toBe("links.example.com");
    expect(isPossibleLinkDomain(null)).toBeNull();
    expect(isPossibleLinkDomain("[::1]:3000")).toBeNull();
  });
});
