/**
 * Issue 39 §4: an e-mail address with a display name (`"Support"<bob@example.com>`) was
 * accepted and slipped past the uniqueness of `bob@example.com`. Only a bare address is
 * accepted now, at sign-up and at an e-mail change alike (lib/users/accounts.ts).
 */
import { describe, expect, it, vi } from "vitest";
import { normaliseEmail } from "@/lib/users/accounts";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser } from "../support/fixtures";
import { relay } from "../support/http";
import { freshName, PASSWORD, withPassword } from "../relay-account/support";

useTestDatabase();
useCounterStore({ perTest: true });
vi.setConfig({ testTimeout: 120_000 });

describe("bare e-mail addresses only", () => {
  it("refuses display names, quotes, brackets and malformed hosts; keeps ordinary addresses", () => {
    for (const refused of [
      '"Support"<bob@example.com>',
      "Support <bob@example.com>",
      "<bob@example.com>",
      '"bob"@example.com',
      "bob@example.com>",
      "bob@@example.com",
      "a@b@example.com",
      "bob@example",
      "bob@-example.com",
      "bob@example-.com",
      "bob@exa_mple.com",
      "bob@127.0.0.1",
      "bob@[127.0.0.1]",
      ".bob@example.com",
      "bob.@example.com",
      "bo..b@example.com",
      `${"a".repeat(65)}@example.com`,
      "bob@example.com,eve@example.com",
    ]) {
      expect(() => normaliseEmail(refused), refused).toThrow(/not an email address/);
    }
    for (const [given, stored] of [
      ["Bob@Example.com", "bob@example.com"],
      ["  first.last+tag@mail.example.co.uk ", "first.last+tag@mail.example.co.uk"],
      ["o'brien@xn--bcher-kva.example", "o'brien@xn--bcher-kva.example"],
    ]) {
      expect(normaliseEmail(given)).toBe(stored);
    }
  });

  it("a display name cannot take an address another account has, at sign-up or by a change", async () => {
    const owner = await createTestUser();
    const address = `bob-${owner.id.toLowerCase()}@example.com`;
    await withPassword(owner.id, address);
    const signUp = await relay("/auth/register", {
      method: "POST",
      body: { username: freshName(), password: "a long password", email: `"Support"<${address}>` },
      ip: "198.51.100.77",
    });
    expect(signUp.status, signUp.text).toBe(400);
    expect(signUp.body.error.type).toBe("invalid_request");

    const other = await createTestUser();
    await withPassword(other.id);
    const change = await relay("/users/@me/email", {
      method: "POST",
      key: other.relayKey,
      body: { email: `"Support"<${address}>`, password: PASSWORD },
    });
    expect(change.status, change.text).toBe(400);
    expect(change.body.error.message).toMatch(/not an email address/);
  });
});
