import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../support/db";
import { verifyPassword } from "@/lib/crypto/password";
import {
  createUser,
  findUserByRef,
  requireUser,
  setPlan,
  setPriorityMinutes,
  setQuotaOverride,
  suspendUser,
  unsuspendUser,
} from "@/lib/users/accounts";
import { domainError } from "./helpers";

describe("accounts", () => {
  const testDb = useTestDatabase();

  describe("createUser", () => {
    it("stores the username lower-case and as typed, on the free plan by default", async () => {
      const user = await createUser({ username: "Alice.B-1_" });
      expect(user).toMatchObject({ username: "alice.b-1_", displayUsername: "Alice.B-1_", plan: "free", suspended: false });
      expect(typeof user.id).toBe("string");
    });

    it("takes a plan, a password (stored as a scrypt hash) and a lower-cased email", async () => {
      const user = await createUser({ username: "carol", plan: "ultra", password: "correct horse", email: " Carol@Example.COM " });
      expect(user).toMatchObject({ plan: "ultra", email: "carol@example.com" });
      const row = await testDb().db.user.findUniqueOrThrow({ where: { id: user.id } });
      expect(row.passwordHash).toMatch(/^scrypt\$/);
      expect(row.passwordHash).not.toContain("correct horse");
      expect(await verifyPassword("correct horse", row.passwordHash)).toBe(true);
    });

    it.each([
      ["too short", "a"],
      ["too long", "a".repeat(33)],
      ["a space", "al ice"],
      ["an @", "al@ice"],
      ["non-ASCII letters", "jürgen"],
      ["only dots", ".."],
    ])("refuses a username with %s", async (_why, username) => {
      expect((await domainError(createUser({ username }))).type).toBe("invalid_request");
    });

    it("accepts usernames of exactly 2 and 32 characters", async () => {
      await expect(createUser({ username: "ab" })).resolves.toMatchObject({ username: "ab" });
      await expect(createUser({ username: "b".repeat(32) })).resolves.toMatchObject({ username: "b".repeat(32) });
    });

    it("refuses a username taken in any letter case", async () => {
      await createUser({ username: "dave" });
      const error = await domainError(createUser({ username: "DAVE" }));
      expect(error.type).toBe("invalid_request");
      expect(error.message).toContain("taken");
    });

    it("refuses an email already in use, in any letter case", async () => {
      await createUser({ username: "erin", email: "erin@example.com" });
      const error = await domainError(createUser({ username: "erin2", email: "ERIN@example.com" }));
      expect(error.type).toBe("invalid_request");
    });

    it("refuses a malformed email, a short password and an unknown plan", async () => {
      expect((await domainError(createUser({ username: "frank", email: "nope" }))).type).toBe("invalid_request");
      expect((await domainError(createUser({ username: "frank", password: "short" }))).type).toBe("invalid_request");
      const badPlan = { username: "frank", plan: "gold" } as unknown as Parameters<typeof createUser>[0];
      expect((await domainError(createUser(badPlan))).type).toBe("invalid_request");
      expect(await findUserByRef("frank")).toBeNull();
    });
  });

  describe("findUserByRef", () => {
    it("finds by id and by username in any case; null otherwise", async () => {
      const user = await createUser({ username: "Grace" });
      expect((await findUserByRef(user.id))?.id).toBe(user.id);
      expect((await findUserByRef("grace"))?.id).toBe(user.id);
      expect((await findUserByRef("GRACE"))?.id).toBe(user.id);
      expect(await findUserByRef("nobody-here")).toBeNull();
      expect(await findUserByRef("")).toBeNull();
      expect((await domainError(requireUser("nobody-here"))).type).toBe("not_found");
    });
  });

  describe("operator levers", () => {
    it("setPlan changes the plan and refuses unknown plans and users", async () => {
      const user = await createUser({ username: "heidi" });
      expect((await setPlan(user.id, "plus")).plan).toBe("plus");
      expect((await findUserByRef("heidi"))?.plan).toBe("plus");
      const gold = "gold" as unknown as Parameters<typeof setPlan>[1];
      expect((await domainError(setPlan(user.id, gold))).type).toBe("invalid_request");
      expect((await domainError(setPlan("missing-id", "plus"))).type).toBe("not_found");
    });

    it("suspend sets suspended and suspendedAt once; unsuspend clears both", async () => {
      const user = await createUser({ username: "ivan" });
      const first = await suspendUser(user.id, new Date("2026-01-01T00:00:00Z"));
      expect(first).toMatchObject({ suspended: true, suspendedAt: new Date("2026-01-01T00:00:00Z") });
      const again = await suspendUser(user.id, new Date("2026-02-01T00:00:00Z"));
      expect(again.suspendedAt).toEqual(new Date("2026-01-01T00:00:00Z"));
      const lifted = await unsuspendUser(user.id);
      expect(lifted).toMatchObject({ suspended: false, suspendedAt: null });
      expect((await domainError(suspendUser("missing-id"))).type).toBe("not_found");
      expect((await domainError(unsuspendUser("missing-id"))).type).toBe("not_found");
    });

    it("setQuotaOverride stores bytes beyond 32 bits and can clear the override", async () => {
      const user = await createUser({ username: "judy" });
      const tenGb = 10 * 1024 ** 3;
      expect((await setQuotaOverride(user.id, tenGb)).quotaOverride).toBe(BigInt(tenGb));
      expect((await setQuotaOverride(user.id, 0)).quotaOverride).toBe(0n);
      expect((await setQuotaOverride(user.id, null)).quotaOverride).toBeNull();
      expect((await domainError(setQuotaOverride(user.id, -1))).type).toBe("invalid_request");
      expect((await domainError(setQuotaOverride(user.id, 1.5))).type).toBe("invalid_request");
    });

    it("setPriorityMinutes stores whole, non-negative minutes", async () => {
      const user = await createUser({ username: "ken" });
      expect((await setPriorityMinutes(user.id, 90)).priorityMinutes).toBe(90);
      expect((await setPriorityMinutes(user.id, 0)).priorityMinutes).toBe(0);
      expect((await domainError(setPriorityMinutes(user.id, -5))).type).toBe("invalid_request");
      expect((await domainError(setPriorityMinutes(user.id, 2 ** 31))).type).toBe("invalid_request");
    });
  });
});
