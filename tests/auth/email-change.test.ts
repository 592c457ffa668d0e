/**
 * Changing the email address (issue 27 §1, docs/web-auth.md "Email address"): the password
 * first; with mail configured, the new address must click the link sent to it (a real SMTP
 * server in this process), without mail the change is immediate.
 */
import { describe, expect, it, vi } from "vitest";
import { confirmEmailChange, pendingEmailOf } from "@/lib/auth/email-change";
import { db } from "@/lib/db/client";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser } from "../support/fixtures";
import { relay } from "../support/http";
import { linkIn, startMailbox } from "../support/smtp";
import { PASSWORD, withPassword } from "../relay-account/support";

useTestDatabase();
useCounterStore({ perTest: true });
vi.setConfig({ testTimeout: 120_000 });

const change = (key: string, body: object) => relay("/users/@me/email", { method: "POST", key, body });
const emailOf = async (id: string) => (await db().user.findUniqueOrThrow({ where: { id } })).email;

describe("changing the email address", () => {
  it("with mail: nothing changes until the link sent to the new address is followed, once", async () => {
    const mailbox = await startMailbox();
    try {
      const user = await createTestUser();
      await withPassword(user.id, "old@example.com".replace("old", `old-${user.id}`));
      const before = await emailOf(user.id);
      const fresh = `new-${user.id}@example.com`;
      expect((await change(user.relayKey, { email: fresh, password: "wrong one" })).status).toBe(401);

      const asked = await change(user.relayKey, { email: fresh.toUpperCase(), password: PASSWORD });
      expect(asked.status, asked.text).toBe(200);
      expect(asked.body).toEqual({ email: before, pending_email: fresh });
      expect(await emailOf(user.id)).toBe(before);

      const link = linkIn(await mailbox.next(fresh));
      expect(link).toMatch(/\/confirm-email\?token=/);
      const token = new URL(link).searchParams.get("token") ?? "";
      expect(await pendingEmailOf(token)).toBe(fresh);
      expect(await confirmEmailChange(token)).toBe(fresh);
      expect(await emailOf(user.id)).toBe(fresh);
      await expect(confirmEmailChange(token)).rejects.toMatchObject({ type: "unauthorized" });
    } finally {
      await mailbox.close();
    }
  });

  it("without mail: immediate, after the password; another account's address is refused", async () => {
    const user = await createTestUser();
    const other = await createTestUser();
    await withPassword(user.id);
    await withPassword(other.id, `taken-${other.id}@example.com`);
    const taken = await change(user.relayKey, { email: `taken-${other.id}@example.com`, password: PASSWORD });
    expect(taken.status).toBe(400);
    expect((await change(user.relayKey, { email: "not an address", password: PASSWORD })).status).toBe(400);
    const done = await change(user.relayKey, { email: `mine-${user.id}@example.com`, password: PASSWORD });
    expect(done.body).toEqual({ email: `mine-${user.id}@example.com`, pending_email: null });
    expect(await emailOf(user.id)).toBe(`mine-${user.id}@example.com`);
  });
});
