/**
 * POST /relay/auth/login failure limits, counted to their 429: per account and per client
 * address. scrypt is swapped for a plain comparison in this file only: the counting is
 * under test here, and forty real hashes would take half a minute on a small machine
 * (auth.test.ts signs in with real scrypt hashes).
 */
import { describe, expect, it, vi } from "vitest";
import { addressSubject, LOGIN_ACCOUNT_LIMIT, LOGIN_IP_LIMIT, LOGIN_WINDOW_SECONDS } from "@/lib/auth/attempts";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser } from "../support/fixtures";
import { relay, type Reply } from "../support/http";
import { freshName, PASSWORD, withPassword } from "./support";

vi.mock("@/lib/crypto/password", () => ({
  hashPassword: async (password: string) => `test$${password}`,
  verifyPassword: async (password: string, stored: string | null | undefined) => stored === `test$${password}`,
  needsRehash: () => false,
}));

useTestDatabase();
useCounterStore({ perTest: true });

const login = (username: string, password: string, ip: string) =>
  relay("/auth/login", { method: "POST", body: { username, password }, ip });

let ipCounter = 0;
/** A new documentation-range address per call, so only the per-account count moves. */
const nextIp = () => `203.0.113.${(ipCounter++ % 250) + 1}`;

function expectLimited(reply: Reply): void {
  expect(reply.status, reply.text).toBe(429);
  expect(reply.body.error.type).toBe("rate_limited");
  const retryAfter = Number(reply.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(LOGIN_WINDOW_SECONDS);
}

async function userWithPassword(): Promise<{ id: string; username: string; email: string }> {
  const user = await createTestUser();
  const email = `${user.username}@example.com`;
  await withPassword(user.id, email);
  return { id: user.id, username: user.username, email };
}

describe("per account", () => {
  it(`allows ${LOGIN_ACCOUNT_LIMIT} failures, then refuses even the right password, from any address`, async () => {
    const user = await userWithPassword();
    for (let i = 0; i < LOGIN_ACCOUNT_LIMIT; i++) {
      const reply = await login(user.username, `wrong ${i}`, nextIp());
      expect(reply.status, `attempt ${i + 1}`).toBe(401);
    }
    expectLimited(await login(user.username, "wrong again", nextIp()));
    expectLimited(await login(user.username, PASSWORD, nextIp()));
    // The username and the email address are one account: one budget.
    expectLimited(await login(user.email, PASSWORD, nextIp()));
    // Another account is untouched.
    const other = await userWithPassword();
    expect((await login(other.username, PASSWORD, nextIp())).status).toBe(200);
  });

  it("counts failures by username and by email together", async () => {
    const user = await userWithPassword();
    for (let i = 0; i < LOGIN_ACCOUNT_LIMIT; i++) {
      const reply = await login(i % 2 ? user.email.toUpperCase() : user.username, "nope", nextIp());
      expect(reply.status).toBe(401);
    }
    expectLimited(await login(user.username, PASSWORD, nextIp()));
  });

  it("does not count successful sign-ins", async () => {
    const user = await userWithPassword();
    for (let i = 0; i < LOGIN_ACCOUNT_LIMIT + 2; i++) {
      expect((await login(user.username, PASSWORD, nextIp())).status).toBe(200);
    }
    for (let i = 0; i < LOGIN_ACCOUNT_LIMIT; i++) expect((await login(user.username, "bad", nextIp())).status).toBe(401);
    expectLimited(await login(user.username, "bad", nextIp()));
  });

  it("limits unknown names the same way, so the limit does not reveal which accounts exist", async () => {
    const ghost = freshName("ghost");
    for (let i = 0; i < LOGIN_ACCOUNT_LIMIT; i++) expect((await login(ghost, "pw", nextIp())).status).toBe(401);
    expectLimited(await login(ghost.toUpperCase(), "pw", nextIp()));
  });
});

describe("per client address", () => {
  it(`allows ${LOGIN_IP_LIMIT} failures from one address over many accounts, then refuses it`, async () => {
    const ip = "192.0.2.10";
    for (let i = 0; i < LOGIN_IP_LIMIT; i++) {
      const reply = await login(freshName("spray"), "password1", ip);
      expect(reply.status, `attempt ${i + 1}`).toBe(401);
    }
    const user = await userWithPassword();
    expectLimited(await login(user.username, PASSWORD, ip));
    // The account itself is fine from elsewhere: the refused attempt was not counted on it.
    expect((await login(user.username, PASSWORD, "192.0.2.11")).status).toBe(200);
  });

  it("counts an IPv6 client per /64", async () => {
    for (let i = 0; i < LOGIN_IP_LIMIT; i++) {
      expect((await login(freshName("v6"), "pw", `2001:db8:1:2::${(i + 1).toString(16)}`)).status).toBe(401);
    }
    expectLimited(await login(freshName("v6"), "pw", "2001:db8:1:2:ffff::9"));
    expect((await login(freshName("v6"), "pw", "2001:db8:1:3::1")).status).toBe(401);
  });
});

describe("addressSubject", () => {
  it("keeps IPv4 and reduces IPv6 to its /64", () => {
    expect(addressSubject("198.51.100.7")).toBe("198.51.100.7");
    expect(addressSubject("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressSubject("2001:0db8:0001:0002:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:1:2::/64");
    expect(addressSubject("2001:db8:1:2::ffff")).toBe(addressSubject("2001:db8:1:2:ffff::9"));
    expect(addressSubject("::1")).toBe("0:0:0:0::/64");
    expect(addressSubject("unknown")).toBe("unknown");
  });
});
