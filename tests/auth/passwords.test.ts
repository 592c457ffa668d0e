/**
 * Passwords (issue 27 §1, docs/web-auth.md "Passwords"): changing one (Relay, which the
 * dashboard calls), forgetting one (a one-time link by mail through a real SMTP server in
 * this process), and the operator's reset link (admin CLI).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { requestPasswordReset, resetPassword, resetTokenUsable, RESET_ACCOUNT_LIMIT, RESET_ADDRESS_LIMIT } from "@/lib/auth/passwords";
import { mailConfigured } from "@/lib/auth/mail";
import { runAdmin } from "@/lib/cli/admin";
import { db } from "@/lib/db/client";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser, type TestUser } from "../support/fixtures";
import { relay } from "../support/http";
import { linkIn, startMailbox, type TestMailbox } from "../support/smtp";
import { PASSWORD, withPassword } from "../relay-account/support";

useTestDatabase();
useCounterStore({ perTest: true });
vi.setConfig({ testTimeout: 120_000 });

const NEW_PASSWORD = "a much better passphrase";

const login = (username: string, password: string) => relay("/auth/login", { method: "POST", body: { username, password } });

async function signedIn(user: TestUser): Promise<string> {
  const reply = await login(user.username, PASSWORD);
  expect(reply.status, reply.text).toBe(200);
  return reply.body.key;
}

const tokenOf = (link: string): string => new URL(link).searchParams.get("token") ?? "";

describe("changing the password", () => {
  it("needs the current password; ends every other session, keeps this one", async () => {
    const user = await createTestUser();
    await withPassword(user.id);
    const current = await signedIn(user);
    const body = (password: string) => ({ password, new_password: NEW_PASSWORD });

    const wrong = await relay("/auth/password", { method: "POST", key: current, body: body("not my password") });
    expect(wrong.status).toBe(401);
    const short = await relay("/auth/password", { method: "POST", key: current, body: { password: PASSWORD, new_password: "short" } });
    expect(short.status).toBe(400);
    const none = await relay("/auth/password", { method: "POST", key: current, body: { new_password: NEW_PASSWORD } });
    expect(none.status).toBe(400);

    const changed = await relay("/auth/password", { method: "POST", key: current, body: body(PASSWORD) });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.signed_out).toBe(1);
    expect((await relay("/users/@me", { key: user.relayKey })).status).toBe(401);
    expect((await relay("/users/@me", { key: current })).status).toBe(200);
    expect((await login(user.username, PASSWORD)).status).toBe(401);
    expect((await login(user.username, NEW_PASSWORD)).status).toBe(200);
  });

  it("an account without a password and without a second factor is told to ask for a reset link", async () => {
    const user = await createTestUser();
    const reply = await relay("/auth/password", {
      method: "POST",
      key: user.relayKey,
      body: { code: "123456", new_password: NEW_PASSWORD },
    });
    expect(reply.status).toBe(403);
    expect(reply.body.error.message).toMatch(/reset link/);
  });
});

describe("forgot password, by mail", () => {
  let mailbox: TestMailbox;
  beforeAll(async () => {
    mailbox = await startMailbox();
  });
  afterAll(() => mailbox.close());

  it("mails a one-time link that sets a new password and ends every session", async () => {
    expect(mailConfigured()).toBe(true);
    const user = await createTestUser();
    const email = `${user.username.toLowerCase()}@example.com`;
    await withPassword(user.id, email);
    const other = await signedIn(user);

    await requestPasswordReset(email.toUpperCase(), "198.51.100.20");
    const mail = await mailbox.next(email);
    expect(mail.raw).toContain("Subject: Reset your password");
    const link = linkIn(mail);
    expect(link).toMatch(/\/reset-password\?token=/);
    const token = tokenOf(link);
    // Only the token's hash is stored.
    expect(JSON.stringify(await db().passwordReset.findMany({ where: { userId: user.id } }))).not.toContain(token);
    expect(await resetTokenUsable(token)).toBe(true);

    await expect(resetPassword(token, "short")).rejects.toMatchObject({ type: "invalid_request" });
    await resetPassword(token, NEW_PASSWORD);
    expect((await relay("/users/@me", { key: other })).status).toBe(401);
    expect((await relay("/users/@me", { key: user.relayKey })).status).toBe(401);
    expect((await login(user.username, NEW_PASSWORD)).status).toBe(200);
    // Single use.
    expect(await resetTokenUsable(token)).toBe(false);
    await expect(resetPassword(token, "yet another passphrase")).rejects.toMatchObject({ type: "unauthorized" });
  });

  it("a link past its 30 minutes is refused", async () => {
    const user = await createTestUser();
    const email = `${user.username.toLowerCase()}@example.com`;
    await withPassword(user.id, email);
    await requestPasswordReset(user.username, "198.51.100.21");
    const token = tokenOf(linkIn(await mailbox.next(email)));
    const row = await db().passwordReset.findFirstOrThrow({ where: { userId: user.id } });
    // 30 minutes from the request (createdAt is the database's clock, so only roughly).
    expect(Math.abs(row.expiresAt.getTime() - row.createdAt.getTime() - 30 * 60 * 1000)).toBeLessThan(5000);
    await db().passwordReset.update({ where: { id: row.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expect(resetPassword(token, NEW_PASSWORD)).rejects.toMatchObject({ type: "unauthorized" });
  });

  it("answers the same for unknown accounts; throttled per account and per address (/64)", async () => {
    await expect(requestPasswordReset("nobody-here@example.com", "2001:db8:5:5::1")).resolves.toBeUndefined();
    await expect(requestPasswordReset("nobody_here", "2001:db8:5:5::1")).resolves.toBeUndefined();

    const user = await createTestUser();
    await withPassword(user.id, `${user.username.toLowerCase()}@example.com`);
    for (let i = 0; i < RESET_ACCOUNT_LIMIT + 2; i++) await requestPasswordReset(user.username, `203.0.113.${i}`);
    // Past the account's limit nothing more is issued, and the answer does not change.
    expect(await db().passwordReset.count({ where: { userId: user.id } })).toBe(RESET_ACCOUNT_LIMIT);

    for (let i = 2; i < RESET_ADDRESS_LIMIT; i++) await requestPasswordReset("nobody_here", `2001:db8:5:5::${i}`);
    await expect(requestPasswordReset("nobody_here", "2001:db8:5:5:ffff::9")).rejects.toMatchObject({ type: "rate_limited" });
    await expect(requestPasswordReset("nobody_here", "2001:db8:5:6::1")).resolves.toBeUndefined();
  });
});

describe("without mail", () => {
  it("there is no mail to ask for; the operator's reset link works (audited)", async () => {
    expect(mailConfigured()).toBe(false);
    await expect(requestPasswordReset("anyone", "198.51.100.30")).rejects.toMatchObject({ type: "unavailable" });

    const user = await createTestUser();
    await withPassword(user.id);
    const result = await runAdmin(["user", "reset-link", "--user", user.username]);
    expect(result.exitCode).toBe(0);
    const output = result.output as { id: string; url: string; expires_at: string };
    expect(output).toMatchObject({ id: user.id });
    expect(output.url).toMatch(/\/reset-password\?token=/);
    const entry = await db().auditEntry.findFirstOrThrow({ where: { action: "user.reset_link", targetId: user.id } });
    expect(entry.detail).not.toContain(tokenOf(output.url));
    await resetPassword(tokenOf(output.url), NEW_PASSWORD);
    expect((await login(user.username, NEW_PASSWORD)).status).toBe(200);
  });
});
