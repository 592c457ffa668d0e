/**
 * Issue 39 §2: a password reset or change ends what an attacker left behind. A pending e-mail
 * change is cancelled (its confirmation link stops working), and the mail to the account's
 * address says so and lists the app keys and sessions that remain, with where to revoke them
 * (keys are not revoked: uploaders would break). Real SMTP server, real database.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { confirmEmailChange } from "@/lib/auth/email-change";
import { issueResetLink, requestPasswordReset, resetPassword } from "@/lib/auth/passwords";
import { db } from "@/lib/db/client";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser, type TestUser } from "../support/fixtures";
import { api, relay } from "../support/http";
import { linkIn, startMailbox, type TestMailbox } from "../support/smtp";
import { PASSWORD, withPassword } from "../relay-account/support";

useTestDatabase();
useCounterStore({ perTest: true });
vi.setConfig({ testTimeout: 120_000 });

const NEW_PASSWORD = "a much better passphrase";
/** The mail's text with quoted-printable soft breaks undone. */
const textOf = (raw: string): string => raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");

describe("a password reset or change cancels pending e-mail changes and says what remains", () => {
  let mailbox: TestMailbox;
  beforeAll(async () => {
    mailbox = await startMailbox();
  });
  afterAll(() => mailbox.close());

  /** An account with a pending change to an attacker's address; answers its confirmation token. */
  async function pendingChange(user: TestUser, email: string): Promise<{ attacker: string; token: string }> {
    await withPassword(user.id, email);
    const attacker = `attacker-${user.id}@example.com`;
    const asked = await relay("/users/@me/email", { method: "POST", key: user.relayKey, body: { email: attacker, password: PASSWORD } });
    expect(asked.status, asked.text).toBe(200);
    await mailbox.next(email); // the old address's warning
    return { attacker, token: new URL(linkIn(await mailbox.next(attacker))).searchParams.get("token") ?? "" };
  }

  it("a change of the password", async () => {
    const user = await createTestUser();
    const email = `owner-${user.id}@example.com`;
    const { attacker, token } = await pendingChange(user, email);
    await db().app.updateMany({ where: { userId: user.id }, data: { lastUsedAt: new Date("2026-11-30T12:00:00Z") } });

    const changed = await relay("/auth/password", {
      method: "POST",
      key: user.relayKey,
      body: { password: PASSWORD, new_password: NEW_PASSWORD },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(await db().emailChange.count({ where: { userId: user.id } })).toBe(0);
    await expect(confirmEmailChange(token)).rejects.toMatchObject({ type: "unauthorized" });

    const notice = textOf((await mailbox.next(email)).raw);
    expect(notice).toContain("was changed");
    expect(notice).toContain(`to ${attacker} was cancelled`);
    // Both app keys of the fixture are listed, not revoked; the session left is this one.
    const apps = await db().app.findMany({ where: { userId: user.id } });
    expect(apps.length).toBeGreaterThan(0);
    for (const app of apps) {
      expect(notice).toContain(`- ${app.name}`);
      expect(app.keyHash).not.toBeNull();
    }
    expect(notice).toContain("last used 2026-11-30");
    expect(notice).toContain("- Test device");
    expect(notice).toMatch(/\/dashboard\/apps/);
    expect(notice).toMatch(/\/dashboard\/settings/);
    expect((await api("/users/@me", { key: user.apiKey })).status).toBe(200);
  });

  it("a reset through the mailed link", async () => {
    const user = await createTestUser();
    const email = `owner-${user.id}@example.com`;
    const { attacker, token } = await pendingChange(user, email);
    const { url } = await issueResetLink(user.id, null);
    await resetPassword(new URL(url).searchParams.get("token") ?? "", NEW_PASSWORD);
    await expect(confirmEmailChange(token)).rejects.toMatchObject({ type: "unauthorized" });
    const notice = textOf((await mailbox.next(email)).raw);
    expect(notice).toContain("was reset");
    expect(notice).toContain(`to ${attacker} was cancelled`);
    // A reset signs every session out.
    expect(notice).toContain("No session is signed in any more.");
  });

  it("a suspended account gets no reset mail (issue 39 §4), and the answer is the same", async () => {
    const user = await createTestUser();
    const email = `suspended-${user.id}@example.com`;
    await withPassword(user.id, email);
    await db().user.update({ where: { id: user.id }, data: { suspended: true } });
    await expect(requestPasswordReset(email, "198.51.100.40")).resolves.toBeUndefined();
    await expect(requestPasswordReset(user.username, "198.51.100.40")).resolves.toBeUndefined();
    expect(await db().passwordReset.count({ where: { userId: user.id } })).toBe(0);
    await db().user.update({ where: { id: user.id }, data: { suspended: false } });
    await requestPasswordReset(email, "198.51.100.40");
    expect(await db().passwordReset.count({ where: { userId: user.id } })).toBe(1);
    expect(linkIn(await mailbox.next(email))).toMatch(/reset-password\?token=/);
  });
});
