/**
 * Keys are stored as their SHA-256 (hex): the digest must never change, or every key in an
 * existing database stops working (lib/crypto/keys.ts hashKey).
 */
import { describe, expect, it } from "vitest";
import { hashKey, issueKey } from "@/lib/crypto/keys";

describe("hashKey", () => {
  it("is the SHA-256 hex digest of the key's UTF-8 bytes", () => {
    // The FIPS 180-2 test vector, and a non-ASCII key (hashed as UTF-8, not Latin-1).
    expect(hashKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(hashKey("\u00e9")).toBe("4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c");
    const issued = issueKey("app");
    expect(issued.hash).toBe(hashKey(issued.key));
    expect(issued.hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
