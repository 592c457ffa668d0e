/** RFC 6238 / RFC 4226 test vectors, base32, the ±1 step window, the otpauth URI. No database. */
import { describe, expect, it } from "vitest";
import { base32Decode, base32Encode, hotp, matchTotp, otpauthUri, totpAt, TOTP_STEP_SECONDS } from "@/lib/auth/factors/totp";

// RFC 6238 Appendix B: the seeds are the ASCII digits "1234567890" repeated to the key length.
const seed = (length: number) => Buffer.from("1234567890".repeat(7).slice(0, length));
const SHA1 = seed(20);
const SHA256 = seed(32);
const SHA512 = seed(64);

describe("HOTP (RFC 4226 Appendix D)", () => {
  it("gives the published values for counters 0-9", () => {
    const expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"];
    expect(expected.map((_, counter) => hotp(SHA1, counter))).toEqual(expected);
  });
});

describe("TOTP (RFC 6238 Appendix B)", () => {
  const vectors: [number, string, string, string][] = [
    [59, "94287082", "46119246", "90693936"],
    [1111111109, "07081804", "68084774", "25091201"],
    [1111111111, "14050471", "67062674", "99943326"],
    [1234567890, "89005924", "91819424", "93441116"],
    [2000000000, "69279037", "90698825", "38618901"],
    [20000000000, "65353130", "77737706", "47863826"],
  ];
  it.each(vectors)("T=%i", (seconds, sha1, sha256, sha512) => {
    expect(totpAt(SHA1, seconds * 1000, 8, "sha1")).toBe(sha1);
    expect(totpAt(SHA256, seconds * 1000, 8, "sha256")).toBe(sha256);
    expect(totpAt(SHA512, seconds * 1000, 8, "sha512")).toBe(sha512);
  });
  it("uses 6 digits by default (the last 6 of the 8-digit value)", () => {
    expect(totpAt(SHA1, 59_000)).toBe("287082");
  });
});

describe("matchTotp", () => {
  const now = 1_111_111_111_000;
  const step = Math.floor(now / 1000 / TOTP_STEP_SECONDS);
  it("accepts the current step and one either side, and names the step", () => {
    expect(matchTotp(SHA1, totpAt(SHA1, now), now)).toBe(step);
    expect(matchTotp(SHA1, totpAt(SHA1, now - 30_000), now)).toBe(step - 1);
    expect(matchTotp(SHA1, totpAt(SHA1, now + 30_000), now)).toBe(step + 1);
  });
  it("refuses two steps away, wrong codes and malformed input", () => {
    expect(matchTotp(SHA1, totpAt(SHA1, now - 60_000), now)).toBeNull();
    expect(matchTotp(SHA1, totpAt(SHA1, now + 60_000), now)).toBeNull();
    const right = totpAt(SHA1, now);
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, "0");
    expect(matchTotp(SHA1, wrong, now)).toBeNull();
    for (const bad of ["", "12345", "1234567", "abcdef", "12 34 5x", "１２３４５６"]) expect(matchTotp(SHA1, bad, now)).toBeNull();
  });
  it("ignores spaces people type in the middle", () => {
    const right = totpAt(SHA1, now);
    expect(matchTotp(SHA1, `${right.slice(0, 3)} ${right.slice(3)}`, now)).toBe(step);
  });
});

describe("base32 and the otpauth URI", () => {
  it("round-trips and matches RFC 4648 §10", () => {
    expect(base32Encode(Buffer.from("foobar"))).toBe("MZXW6YTBOI");
    expect(base32Decode("mzxw6ytboi======")!.toString()).toBe("foobar");
    expect(base32Decode("MZXW6YTB0I")).toBeNull(); // "0" is not in the alphabet
    expect(base32Encode(SHA1)).toBe("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
  });
  it("names the issuer and account and carries the parameters", () => {
    const text = otpauthUri(SHA1, "media.example", "Alice B");
    expect(text.startsWith("otpauth://totp/media.example:Alice%20B?")).toBe(true);
    const uri = new URL(text);
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      secret: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ",
      issuer: "media.example",
      algorithm: "SHA1",
      digits: "6",
      period: "30",
    });
  });
});
