import { describe, expect, it } from "vitest";
import { clientIp, normalizeIp, resolveClientIp } from "@/lib/ratelimit/client-ip";

describe("normalizeIp", () => {
  it.each([
    [" 203.0.113.7 ", "203.0.113.7"],
    ["::ffff:127.0.0.1", "127.0.0.1"],
    ["::FFFF:10.0.0.1", "10.0.0.1"],
    ["203.0.113.7:5678", "203.0.113.7"],
    ["[2001:DB8::1]:443", "2001:db8::1"],
    ["[2001:db8::1]", "2001:db8::1"],
    ["2001:db8::1", "2001:db8::1"],
    ["::1", "::1"],
    ["", ""],
  ])("%j -> %j", (input, expected) => {
    expect(normalizeIp(input)).toBe(expected);
  });
});

describe("resolveClientIp (the custom server's rule)", () => {
  it("uses the socket address and ignores X-Forwarded-For without TRUST_PROXY", () => {
    expect(resolveClientIp("::ffff:192.0.2.10", "198.51.100.1", false)).toBe("192.0.2.10");
    expect(resolveClientIp("2001:db8::5", undefined, false)).toBe("2001:db8::5");
  });

  it("uses the left-most X-Forwarded-For entry with TRUST_PROXY", () => {
    expect(resolveClientIp("10.0.0.2", " 198.51.100.1 , 10.0.0.1", true)).toBe("198.51.100.1");
    expect(resolveClientIp("10.0.0.2", ["198.51.100.1, 10.0.0.1", "10.0.0.3"], true)).toBe("198.51.100.1");
    expect(resolveClientIp("10.0.0.2", "::ffff:198.51.100.9", true)).toBe("198.51.100.9");
  });

  it("falls back to the socket when a trusted proxy sent no X-Forwarded-For", () => {
    expect(resolveClientIp("::ffff:10.0.0.2", undefined, true)).toBe("10.0.0.2");
    expect(resolveClientIp("10.0.0.2", " , ", true)).toBe("10.0.0.2");
    expect(resolveClientIp("10.0.0.2", [], true)).toBe("10.0.0.2");
  });

  it("is 'unknown' with no address at all", () => {
    expect(resolveClientIp(undefined, undefined, false)).toBe("unknown");
    expect(resolveClientIp(undefined, "198.51.100.1", false)).toBe("unknown");
  });
});

describe("clientIp (route handlers)", () => {
  it("reads x-client-ip set by the custom server", () => {
    const headers = new Headers({ "x-client-ip": "192.0.2.10", "x-forwarded-for": "198.51.100.1" });
    expect(clientIp(headers)).toBe("192.0.2.10");
  });

  it("falls back to the left-most X-Forwarded-For entry, then 'unknown'", () => {
    expect(clientIp(new Headers({ "x-forwarded-for": "198.51.100.1, 10.0.0.1" }))).toBe("198.51.100.1");
    expect(clientIp(new Headers({ "x-client-ip": " ", "x-forwarded-for": "::ffff:10.1.1.1" }))).toBe("10.1.1.1");
    expect(clientIp(new Headers())).toBe("unknown");
  });
});
