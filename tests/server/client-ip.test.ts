/**
 * The client address rule and the request preparation of the custom server, over a real
 * socket: TRUST_PROXY decides whether X-Forwarded-For counts.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalizeIp, requestClientIp, resolveClientIp } from "@/lib/http/client-ip";
import { stampRequest, syncRawHeaders } from "@/lib/server/server";

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
