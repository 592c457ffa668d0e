/**
 * The first administrator (issue 38 §1, docs/setup.md): only with the set-up code, wrong
 * codes refused without a hint and limited, and never twice.
 */
import { describe, expect, it } from "vitest";
import { claimInstance, SETUP_IP_LIMIT, setupCode, setupPending } from "@/lib/accounts/setup";
import { listAudit } from "@/lib/audit/log";
import { createUser } from "@/lib/users/accounts";
import { expectDomainError } from "../cli/helpers";
import { useTestDatabase } from "../support/db";

const input = (code: string, username: string, ip = "198.51.100.7") => ({ code, username, password: "a long first password", ip });

describe("claiming the instance", () => {
  const testDb = useTestDatabase();

  it("the code is stable, 60 bits of Crockford base32, and differs per signing secret", () => {
    expect(setupCode("secret-a")).toBe(setupCode("secret-a"));
    expect(setupCode("secret-a")).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(setupCode("secret-a")).not.toBe(setupCode("secret-b"));
  });

  it("a wrong code is refused without revealing anything, and creates nothing", async () => {
    const wrong = setupCode("another instance");
    const error = await expectDomainError(claimInstance(input(wrong, "intruder")), "forbidden");
    expect(error.message).toBe("That set-up code is not valid.");
    expect(await testDb().db.user.count()).toBe(0);
    expect(await setupPending()).toBe(true);
  });

  it("wrong codes are limited per address; the limit holds the right code back too", async () => {
    const ip = "203.0.113.9";
    for (let i = 1; i < SETUP_IP_LIMIT; i++) await expectDomainError(claimInstance(input("WRONG-CODE-0000", "x", ip)), "forbidden");
    await expectDomainError(claimInstance(input("WRONG-CODE-0000", "x", ip)), "forbidden");
    const limited = await expectDomainError(claimInstance(input(setupCode(), "root", ip)), "rate_limited");
    expect(limited.retryAfter).toBeGreaterThan(0);
    expect(await setupPending()).toBe(true);
  });

  it("the right code (any case, dashes or not) makes the first administrator, once; /setup then answers not_found", async () => {
    const code = setupCode().toLowerCase().replace(/-/g, " ");
    const admin = await claimInstance(input(code, "Root"));
    const row = await testDb().db.user.findUniqueOrThrow({ where: { id: admin.id } });
    expect(row).toMatchObject({ role: "admin", displayUsername: "Root" });
    expect(await setupPending()).toBe(false);
    expect((await listAudit({ limit: 1 })).items[0]).toMatchObject({ action: "instance.setup", targetId: admin.id });
    await expectDomainError(claimInstance(input(setupCode(), "second")), "not_found");
    expect(await testDb().db.user.count({ where: { role: "admin" } })).toBe(1);
  });
});

describe("two set-ups racing", () => {
  const testDb = useTestDatabase();

  it("one wins; the other's account is not kept", async () => {
    const results = await Promise.allSettled([claimInstance(input(setupCode(), "first")), claimInstance(input(setupCode(), "other"))]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(await testDb().db.user.count({ where: { role: "admin" } })).toBe(1);
    expect(await testDb().db.user.count()).toBe(1);
  });

  it("an administrator made with the CLI closes /setup too", async () => {
    await testDb().db.user.deleteMany();
    await testDb().db.instanceSetup.deleteMany();
    const made = await createUser({ username: "cli-admin" });
    await testDb().db.user.update({ where: { id: made.id }, data: { role: "admin" } });
    await expectDomainError(claimInstance(input(setupCode(), "late")), "not_found");
  });
});
