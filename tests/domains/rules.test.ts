/**
 * The rules of domains (docs/domains.md) on the test database: the DOMAINS setting's
 * grammar, the host check's verdicts (unset: every name served, as before), the names the
 * database knows, and the links of a post on its domain or its author's default.
 */
import { describe, expect, it } from "vitest";
import { formatDomains, parseDomains } from "@/lib/config/domains";
import { resetEnv } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { checkDefaultDomain, chooseUploadDomain, postCdnBase, postShareUrl } from "@/lib/domains/domains";
import { forgetServedHosts, hostVerdict, isServedHost } from "@/lib/domains/host-gate";
import { useTestDatabase } from "../support/db";
import { createTestUser } from "../support/fixtures";

useTestDatabase();

async function withEnv<T>(vars: Record<string, string>, work: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  resetEnv();
  try {
    return await work();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetEnv();
  }
}

const DOMAINS = "img.example, http://files.example:8080=files, go.example=links+pages";
const withDomains = <T>(work: () => Promise<T>) => withEnv({ DOMAINS, PUBLIC_URL: "https://media.example" }, work);

describe("the DOMAINS setting", () => {
  it("reads names with what each serves, https unless told, and writes them back canonically", () => {
    const domains = parseDomains(" IMG.example.,http://files.example:8080=files\ngo.example=LINKS+pages ");
    expect(domains).toEqual([
      { name: "img.example", origin: "https://img.example", all: true, serves: ["pages", "files", "links"] },
      { name: "files.example", origin: "http://files.example:8080", all: false, serves: ["files"] },
      { name: "go.example", origin: "https://go.example", all: false, serves: ["pages", "links"] },
    ]);
    expect(formatDomains(domains)).toBe("img.example, http://files.example:8080=files, go.example=pages+links");
    expect(parseDomains("")).toEqual([]);
  });

  it("refuses what is not a host name, an unknown kind, a path and a name listed twice", () => {
    for (const bad of ["img.example=everything", "img.example/p", "ftp://img.example", "a..b", "img.example, IMG.example=files", "x=a=b"]) {
      expect(() => parseDomains(bad), bad).toThrow();
    }
  });
});

describe("hostVerdict", () => {
  it("serves every name when DOMAINS is empty (the default: nothing changes)", async () => {
    await withEnv({ DOMAINS: "" }, async () => {
      expect(hostVerdict("evil.example", "/p/abcdef")).toBe("serve");
      expect(hostVerdict(undefined, "/api/posts")).toBe("serve");
    });
  });

  it("serves own names fully, listed ones for what they list, refuses names without a Host, asks the database about others", async () => {
    await withDomains(async () => {
      expect(hostVerdict("media.example", "/dashboard")).toBe("serve");
      expect(hostVerdict("127.0.0.1:3000", "/api/posts")).toBe("serve");
      expect(hostVerdict("[::1]", "/")).toBe("serve");
      expect(hostVerdict("IMG.example.", "/api/posts")).toBe("serve");
      expect(hostVerdict("files.example:8080", "/cdn/abc/a.png")).toBe("serve");
      expect(hostVerdict("files.example", "/p/abcdef")).toBe("refuse");
      expect(hostVerdict("go.example", "/s/abc")).toBe("serve");
      expect(hostVerdict("go.example", "/_next/static/x.js")).toBe("serve");
      expect(hostVerdict("go.example", "/cdnx")).toBe("refuse");
      expect(hostVerdict("go.example", "/signin")).toBe("refuse");
      expect(hostVerdict(undefined, "/p/abcdef")).toBe("refuse");
      expect(hostVerdict("evil.example", "/healthz")).toBe("serve");
      expect(hostVerdict("evil.example", "/p/abcdef")).toBe("ask");
    });
  });

  it("answers a proven link domain and an imported old host from the database; any other name not", async () => {
    forgetServedHosts();
    const user = await createTestUser();
    await db().user.update({
      where: { id: user.id },
      data: { linkDomain: "mine.example", linkDomainVerifiedAt: new Date(), provenLinkDomain: "mine.example" },
    });
    await db().importHost.create({ data: { host: "old.example", source: "test" } });
    expect(await isServedHost("mine.example:443")).toBe(true);
    expect(await isServedHost("old.example")).toBe(true);
    expect(await isServedHost("evil.example")).toBe(false);
    expect(await isServedHost(undefined)).toBe(false);
  });
});

describe("links on a domain", () => {
  const user = (defaultDomain: string | null = null) => ({ linkDomain: "mine.example", linkDomainVerifiedAt: new Date(), defaultDomain });

  it("builds each kind of link on the chosen domain only where it serves it, else as before", async () => {
    await withDomains(async () => {
      expect(postShareUrl({ code: "abc123", domain: "img.example", user: user() })).toBe("https://img.example/p/abc123");
      expect(postCdnBase({ domain: "img.example", user: user() })).toBe("https://img.example/cdn");
      expect(postShareUrl({ code: "abc123", domain: "files.example", user: user() })).toBe("https://mine.example/abc123");
      expect(postCdnBase({ domain: "files.example", user: user() })).toBe("http://files.example:8080/cdn");
      expect(postShareUrl({ code: "abc123", domain: null, user: user("go.example") })).toBe("https://go.example/p/abc123");
      expect(postShareUrl({ code: "abc123", domain: "media.example", user: user() })).toBe("https://media.example/p/abc123");
      // A domain the operator no longer lists: as before.
      expect(postShareUrl({ code: "abc123", domain: "gone.example", user: null })).toBe("https://media.example/p/abc123");
      expect(postCdnBase({ domain: "gone.example", user: null })).toBe("https://media.example/cdn");
    });
  });

  it("ignores the stored choices while DOMAINS is empty: every link as before", async () => {
    await withEnv({ DOMAINS: "", PUBLIC_URL: "https://media.example" }, async () => {
      expect(postShareUrl({ code: "abc123", domain: "img.example", user: user("img.example") })).toBe("https://mine.example/abc123");
      expect(postCdnBase({ domain: "img.example", user: user() })).toBe("https://media.example/cdn");
    });
  });

  it("takes only an offered domain from the header and default_domain; the header is not read while DOMAINS is empty", async () => {
    const { id } = await createTestUser();
    await withDomains(async () => {
      expect(await chooseUploadDomain(id, " Img.Example ")).toBe("img.example");
      expect(await chooseUploadDomain(id, null)).toBeNull();
      await expect(chooseUploadDomain(id, "mine.example")).rejects.toThrow(/x-mediahost-domain/);
      expect(await checkDefaultDomain(id, "go.example")).toBe("go.example");
      await expect(checkDefaultDomain(id, "evil.example")).rejects.toThrow(/default_domain/);
    });
    await withEnv({ DOMAINS: "" }, async () => {
      expect(await chooseUploadDomain(id, "evil.example")).toBeNull();
      await expect(checkDefaultDomain(id, "img.example")).rejects.toThrow(/offers no other domains/);
      expect(await checkDefaultDomain(id, null)).toBeNull();
    });
  });
});
