/**
 * Password hashes made with older scrypt settings (N=2^15 until issue 18) keep verifying and
 * are replaced with the current settings on the next successful Relay sign-in; the web
 * sign-in calls the same function and is covered over HTTP in tests/server/page-security.test.ts.
 */
import { describe, expect, it } from "vitest";
import { CURRENT_PARAMS, hashPassword, needsRehash, scryptLoad, verifyPassword } from "@/lib/crypto/password";
import { db } from "@/lib/db/client";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser } from "../support/fixtures";
import { relay } from "../support/http";
import { PASSWORD } from "./support";

useTestDatabase();
useCounterStore({ perTest: true });

const OLD = { N: 1 << 15, r: 8, p: 1 };
const paramsOf = (stored: string): string => stored.split("$").slice(1, 4).join("$");

async function userWithOldHash(): Promise<{ id: string; username: string; hash: string }> {
  const user = await createTestUser();
  const hash = await hashPassword(PASSWORD, OLD);
  await db().user.update({ where: { id: user.id }, data: { passwordHash: hash } });
  return { id: user.id, username: user.username, hash };
}

const storedHash = async (id: string): Promise<string> =>
  (await db().user.findUniqueOrThrow({ where: { id }, select: { passwordHash: true } })).passwordHash!;

describe("password hashes", () => {
  it("are made with OWASP's N=2^17, r=8, p=1 and carry their parameters", async () => {
    expect(CURRENT_PARAMS).toEqual({ N: 131072, r: 8, p: 1 });
    const stored = await hashPassword("a long password");
    expect(stored).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await verifyPassword("a long password", stored)).toBe(true);
    expect(await verifyPassword("another password", stored)).toBe(false);
    expect(needsRehash(stored)).toBe(false);
  });

  it("made with the old settings still verify and are marked for a rehash", async () => {
    const old = await hashPassword("a long password", OLD);
    expect(paramsOf(old)).toBe("32768$8$1");
    expect(await verifyPassword("a long password", old)).toBe(true);
    expect(needsRehash(old)).toBe(true);
  });

  it("are computed at most two at a time (128 MiB each); the others wait their turn", async () => {
    const small = { N: 1 << 10, r: 8, p: 1 };
    const hashes = Array.from({ length: 5 }, (_, i) => hashPassword(`password ${i}`, small));
    expect(scryptLoad()).toEqual({ running: 2, waiting: 3 });
    const done = await Promise.all(hashes);
    expect(new Set(done).size).toBe(5);
    expect(scryptLoad()).toEqual({ running: 0, waiting: 0 });
  });

  it("with parameters out of bounds never verify (a corrupt row cannot exhaust memory)", async () => {
    const good = await hashPassword("a long password", OLD);
    const [, , r, p, salt, hash] = good.split("$");
    for (const n of ["4194304", "1000"]) {
      expect(await verifyPassword("a long password", ["scrypt", n, r, p, salt, hash].join("$"))).toBe(false);
    }
  });
});

describe("Relay sign-in upgrades an old hash", () => {
  it("signs in with the old hash and stores one with the current parameters", async () => {
    const user = await userWithOldHash();
    const reply = await relay("/auth/login", { method: "POST", body: { username: user.username, password: PASSWORD } });
    expect(reply.status, reply.text).toBe(200);
    const upgraded = await storedHash(user.id);
    expect(upgraded).not.toBe(user.hash);
    expect(paramsOf(upgraded)).toBe("131072$8$1");
    expect(await verifyPassword(PASSWORD, upgraded)).toBe(true);
    // And the next sign-in works with it, leaving it as it is.
    expect((await relay("/auth/login", { method: "POST", body: { username: user.username, password: PASSWORD } })).status).toBe(200);
    expect(await storedHash(user.id)).toBe(upgraded);
  });

  it("leaves the hash alone after a wrong password", async () => {
    const user = await userWithOldHash();
    const reply = await relay("/auth/login", { method: "POST", body: { username: user.username, password: "not the password" } });
    expect(reply.status).toBe(401);
    expect(await storedHash(user.id)).toBe(user.hash);
  });
});
