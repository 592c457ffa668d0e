/**
 * The client address rule and the request preparation of the custom server, over a real
 * socket: TRUST_PROXY decides whether X-Forwarded-For counts.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { normalizeIp, requestClientIp, resolveClientIp } from "@/lib/http/client-ip";
import { resetDirectWarning, stampRequest, syncRawHeaders } from "@/lib/server/stamp";
import { parseTrustProxy } from "@/lib/config/trust-proxy";

describe("resolveClientIp (the custom server's rule)", () => {
  it("uses the socket address without TRUST_PROXY, whatever the headers say", () => {
    expect(resolveClientIp("203.0.113.7", "198.51.100.1", false)).toBe("203.0.113.7");
    expect(resolveClientIp("::ffff:203.0.113.7", undefined, false)).toBe("203.0.113.7");
    expect(resolveClientIp("2001:DB8::1", "198.51.100.1", false)).toBe("2001:db8::1");
  });

  it("uses the left-most X-Forwarded-For entry with TRUST_PROXY", () => {
    expect(resolveClientIp("10.0.0.2", "198.51.100.1, 10.0.0.1", true)).toBe("198.51.100.1");
    expect(resolveClientIp("10.0.0.2", ["198.51.100.1", "10.0.0.1"], true)).toBe("198.51.100.1");
    expect(resolveClientIp("10.0.0.2", " ::ffff:198.51.100.1 ", true)).toBe("198.51.100.1");
    expect(resolveClientIp("10.0.0.2", "[2001:db8::5]:443", true)).toBe("2001:db8::5");
    expect(resolveClientIp("10.0.0.2", "198.51.100.1:5678", true)).toBe("198.51.100.1");
  });

  it("falls back to the socket when the trusted header is missing or not an address", () => {
    expect(resolveClientIp("10.0.0.2", undefined, true)).toBe("10.0.0.2");
    expect(resolveClientIp("10.0.0.2", "", true)).toBe("10.0.0.2");
    expect(resolveClientIp("10.0.0.2", "unknown, 198.51.100.1", true)).toBe("10.0.0.2");
    expect(resolveClientIp(undefined, undefined, false)).toBe("");
  });

  it("falls back to the socket when a trusted proxy sent an empty list", () => {
    expect(resolveClientIp("10.0.0.2", " , ", true)).toBe("10.0.0.2");
    expect(resolveClientIp("10.0.0.2", [], true)).toBe("10.0.0.2");
  });

  it.each([
    [" 203.0.113.7 ", "203.0.113.7"],
    ["::ffff:127.0.0.1", "127.0.0.1"],
    ["::FFFF:10.0.0.1", "10.0.0.1"],
    ["203.0.113.7:5678", "203.0.113.7"],
    ["[2001:DB8::1]:443", "2001:db8::1"],
    ["[::1]", "::1"],
    ["2001:db8::1", "2001:db8::1"],
    ["", ""],
  ])("normalizes %j to %j", (input, expected) => {
    expect(normalizeIp(input)).toBe(expected);
  });
});

describe("requestClientIp (route handlers, pages, server actions)", () => {
  it("reads x-client-ip set by the custom server, normalised", () => {
    expect(requestClientIp(new Headers({ "x-client-ip": "::ffff:192.0.2.10", "x-forwarded-for": "198.51.100.1" }))).toBe("192.0.2.10");
  });

  it("without it (a Next server without ours): the left-most X-Forwarded-For address, then 'unknown'", () => {
    expect(requestClientIp(new Headers({ "x-forwarded-for": "198.51.100.1, 10.0.0.1" }))).toBe("198.51.100.1");
    expect(requestClientIp(new Headers({ "x-client-ip": " ", "x-forwarded-for": "::ffff:10.1.1.1" }))).toBe("10.1.1.1");
    expect(requestClientIp(new Headers({ "x-forwarded-for": "garbage, 10.0.0.1" }))).toBe("unknown");
    expect(requestClientIp(new Headers())).toBe("unknown");
  });
});

describe("stampRequest and syncRawHeaders over a real socket", () => {
  const servers: Server[] = [];
  const echo = async (trustProxy: boolean): Promise<string> => {
    const server = createServer((req, res) => {
      stampRequest(req, trustProxy);
      syncRawHeaders(req, trustProxy);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ headers: req.headers, raw: req.rawHeaders }));
    });
    servers.push(server);
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  interface Echo {
    headers: Record<string, string>;
    raw: string[];
  }
  const call = async (url: string, headers: Record<string, string>): Promise<{ res: Response; body: Echo }> => {
    const res = await fetch(url, { headers });
    return { res, body: (await res.json()) as Echo };
  };
  const forged = { "request-id": "mine", "x-client-ip": "6.6.6.6", "x-forwarded-for": "198.51.100.1, 10.0.0.1" };

  let direct: string;
  let proxied: string;
  beforeAll(async () => {
    direct = await echo(false);
    proxied = await echo(true);
  });
  afterAll(() => {
    for (const server of servers) server.close();
  });

  it("without TRUST_PROXY: socket address everywhere, forged headers replaced", async () => {
    const { body } = await call(direct, forged);
    expect(body.headers["x-client-ip"]).toBe("127.0.0.1");
    expect(body.headers["x-forwarded-for"]).toBe("127.0.0.1");
    expect(body.headers["request-id"]).toMatch(/^[0-9a-f]{32}$/);
    // The raw header list agrees, so nothing reading it sees the client's values.
    expect(body.raw.filter((v) => ["6.6.6.6", "mine", "198.51.100.1, 10.0.0.1"].includes(v))).toEqual([]);
  });

  it("with TRUST_PROXY: the left-most X-Forwarded-For entry, header kept for Next", async () => {
    const { body } = await call(proxied, forged);
    expect(body.headers["x-client-ip"]).toBe("198.51.100.1");
    expect(body.headers["x-forwarded-for"]).toBe("198.51.100.1, 10.0.0.1");
  });

  it("with TRUST_PROXY and no header: the socket address", async () => {
    const { body } = await call(proxied, {});
    expect(body.headers["x-client-ip"]).toBe("127.0.0.1");
  });
});

describe("TRUST_PROXY beyond 1: hops, trusted ranges, a platform's header (forged headers)", () => {
  const rule = (value: string, header?: string) => parseTrustProxy(value, header);

  it("parses the forms and refuses what it cannot read", () => {
    expect(rule("")).toEqual({ kind: "off" });
    expect(rule("0")).toEqual({ kind: "off" });
    expect(rule("1")).toEqual({ kind: "leftmost" });
    expect(rule("true", "CF-Connecting-IP")).toEqual({ kind: "leftmost", header: "cf-connecting-ip" });
    expect(rule("hops:2")).toEqual({ kind: "hops", hops: 2 });
    expect(rule("10.0.0.0/8, 2400:cb00::/32, 192.0.2.1")).toMatchObject({ kind: "ranges" });
    expect(() => rule("hops:0")).toThrow(/TRUST_PROXY/);
    expect(() => rule("10.0.0.0/33")).toThrow(/TRUST_PROXY/);
    expect(() => rule("proxy.example.com")).toThrow(/TRUST_PROXY/);
    expect(() => rule("1", "bad header")).toThrow(/TRUST_PROXY_HEADER/);
  });

  it("TRUST_PROXY=1 keeps the spec's rule: the left-most entry", () => {
    expect(resolveClientIp("10.0.0.2", "198.51.100.1, 10.0.0.1", rule("1"))).toBe("198.51.100.1");
  });

  it("hops:n walks from the right: what the client wrote on the left is skipped", () => {
    // The client forged 6.6.6.6; one proxy appended the real address 203.0.113.9.
    expect(resolveClientIp("10.0.0.2", "6.6.6.6, 203.0.113.9", rule("hops:1"))).toBe("203.0.113.9");
    // Two proxies: the first appended the client, the second appended the first.
    expect(resolveClientIp("10.0.0.2", "6.6.6.6, 203.0.113.9, 10.0.0.1", rule("hops:2"))).toBe("203.0.113.9");
    // Fewer entries than hops: the left-most there is.
    expect(resolveClientIp("10.0.0.2", "203.0.113.9", rule("hops:3"))).toBe("203.0.113.9");
    expect(resolveClientIp("10.0.0.2", undefined, rule("hops:1"))).toBe("10.0.0.2");
    // A garbage entry stops the walk at the last address: it never becomes the client.
    expect(resolveClientIp("10.0.0.2", "6.6.6.6, garbage", rule("hops:2"))).toBe("10.0.0.2");
  });

  it("trusted ranges: the first address from the right that is not a trusted proxy", () => {
    const behind = rule("loopback, 173.245.48.0/20");
    expect(resolveClientIp("127.0.0.1", "6.6.6.6, 203.0.113.9, 173.245.48.7", behind)).toBe("203.0.113.9");
    // A peer outside the ranges is the client itself, whatever it forwards.
    expect(resolveClientIp("198.51.100.77", "6.6.6.6", behind)).toBe("198.51.100.77");
    // Every hop trusted: the left-most.
    expect(resolveClientIp("127.0.0.1", "173.245.48.1", behind)).toBe("173.245.48.1");
    expect(resolveClientIp("::1", "2001:db8::7", rule("loopback"))).toBe("2001:db8::7");
  });

  it("TRUST_PROXY_HEADER is believed from a trusted peer only", () => {
    const cloudflare = rule("loopback, 173.245.48.0/20", "CF-Connecting-IP");
    expect(resolveClientIp("173.245.48.7", "6.6.6.6", cloudflare, "203.0.113.9")).toBe("203.0.113.9");
    // Sent straight to the origin by the client: ignored, the socket is the client.
    expect(resolveClientIp("198.51.100.77", "6.6.6.6", cloudflare, "6.6.6.6")).toBe("198.51.100.77");
    // Not an address: the walk decides instead.
    expect(resolveClientIp("173.245.48.7", "203.0.113.9", cloudflare, "nonsense")).toBe("203.0.113.9");
  });

  it("over a real socket: a forged CF-Connecting-IP from an untrusted peer changes nothing", async () => {
    const server = createServer((req, res) => {
      stampRequest(req, parseTrustProxy("192.0.2.0/24", "CF-Connecting-IP"));
      res.end(req.headers["x-client-ip"]);
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const res = await fetch(url, { headers: { "cf-connecting-ip": "6.6.6.6", "x-forwarded-for": "6.6.6.6" } });
      expect(await res.text()).toBe("127.0.0.1");
    } finally {
      server.close();
    }
  });
});

describe("a client that reaches the port around the proxy (issue 39 §4)", () => {
  const rule = (value: string, header?: string) => parseTrustProxy(value, header);

  it("cidr:<list> is the recommended form, the same as the bare list", () => {
    expect(rule("cidr:loopback, 173.245.48.0/20")).toEqual(rule("loopback, 173.245.48.0/20"));
    const behind = rule("cidr:10.0.0.0/8");
    expect(resolveClientIp("198.51.100.77", "6.6.6.6", behind)).toBe("198.51.100.77");
    expect(resolveClientIp("10.1.2.3", "203.0.113.9", behind)).toBe("203.0.113.9");
  });

  it("with 1 or hops:<n>, TRUST_PROXY_HEADER is believed from a loopback or private peer only", () => {
    for (const value of ["1", "hops:1"]) {
      const trust = rule(value, "CF-Connecting-IP");
      expect(resolveClientIp("127.0.0.1", "203.0.113.9", trust, "203.0.113.50"), value).toBe("203.0.113.50");
      expect(resolveClientIp("10.0.0.2", "203.0.113.9", trust, "203.0.113.50"), value).toBe("203.0.113.50");
      expect(resolveClientIp("fd00::2", undefined, trust, "203.0.113.50"), value).toBe("203.0.113.50");
      // Straight from the internet: the forged header is not believed.
      expect(resolveClientIp("198.51.100.77", undefined, trust, "6.6.6.6"), value).toBe("198.51.100.77");
    }
  });

  it("warns once in the log when a request arrives without the proxy's X-Forwarded-For", async () => {
    resetDirectWarning();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const server = createServer((req, res) => {
      stampRequest(req, parseTrustProxy("hops:1"));
      res.end(req.headers["x-client-ip"]);
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await (await fetch(url, { headers: { "x-forwarded-for": "203.0.113.9" } })).text();
      expect(warn).not.toHaveBeenCalled();
      await (await fetch(url)).text();
      await (await fetch(url)).text();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toMatch(/without X-Forwarded-For.*HOST=127\.0\.0\.1.*cidr:/s);
    } finally {
      warn.mockRestore();
      server.close();
    }
  });
});
