/**
 * Issue 39 §1: the takeover chain through second-factor enrolment, played end to end against
 * the Relay dispatcher, a real database and a real SMTP server. A stolen session (its last
 * confirmation an hour old) tries: start TOTP set-up, confirm it with its own authenticator,
 * use the new factor's recovery code as the "it is you" proof, move the account's e-mail to its
 * own address, reset the password through it. Every step is refused, and the variants that
 * get further (a freshly confirmed session, a factor past its window) stop at the old
 * address's one-click cancel. docs/security.md lists what a recent confirmation guards.
 */
import { describe, expect, it, vi } from "vitest";
import { GET as cancelRoute } from "@/app/cancel-email-change/route";
import { resetEnv } from "@/lib/config/env";
import { FACTOR_SETTLING_MS } from "@/lib/auth/confirmation";
import { confirmEmailChange } from "@/lib/auth/email-change";
import { base32Decode, totpAt } from "@/lib/auth/factors/totp";
import { requestPasswordReset } from "@/lib/auth/passwords";
import { db } from "@/lib/db/client";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser, type TestUser } from "../support/fixtures";
import { api, relay, type Reply } from "../support/http";
import { linkIn, startMailbox } from "../support/smtp";
import { PASSWORD, withPassword } from "../relay-account/support";

useTestDatabase();
useCounterStore({ perTest: true });
vi.setConfig({ testTimeout: 120_000 });

const HOUR_AGO = () => new Date(Date.now() - 60 * 60 * 1000);

function expectConfirmationRequired(reply: Reply): void {
  expect(reply.status, reply.text).toBe(403);
  expect(reply.body.error).toMatchObject({ type: "forbidden", confirmation_required: true });
}

/** Sets when the user's sessions were last confirmed. */
const confirmedAt = (user: TestUser, at: Date) => db().relaySession.updateMany({ where: { userId: user.id }, data: { confirmedAt: at } });

/** Moves the user's factors back in time, as if they had been added `ms` ago. */
async function ageFactors(user: TestUser, ms: number): Promise<void> {
  const at = new Date(Date.now() - ms);
  await db().totpFactor.updateMany({ where: { userId: user.id }, data: { enabledAt: at } });
  await db().recoveryCode.updateMany({ where: { userId: user.id }, data: { createdAt: at } });
}

/** The attacker's enrolment from a session that is confirmed (the owner had just signed in on it). */
async function plantTotp(user: TestUser): Promise<{ secret: Buffer; codes: string[] }> {
  const setup = await relay("/auth/two-factor/totp", { method: "POST", key: user.relayKey });
  expect(setup.status, setup.text).toBe(200);
  const secret = base32Decode(setup.body.secret)!;
  const done = await relay("/auth/two-factor/totp/confirm", {
    method: "POST",
    key: user.relayKey,
    body: { code: totpAt(secret, Date.now()) },
  });
  expect(done.status, done.text).toBe(200);
  return { secret, codes: done.body.recovery_codes };
}

describe("the takeover chain through second-factor enrolment", () => {
  it("a session whose last confirmation is an hour old cannot start it", async () => {
    const mailbox = await startMailbox();
    try {
      const owner = await createTestUser();
      await withPassword(owner.id, `owner-${owner.id}@example.com`);
      await confirmedAt(owner, HOUR_AGO());

      // 1. Start TOTP set-up: refused before any secret is issued.
      expectConfirmationRequired(await relay("/auth/two-factor/totp", { method: "POST", key: owner.relayKey }));
      expect(await db().totpFactor.findUnique({ where: { userId: owner.id } })).toBeNull();
      // 2. Confirming a set-up (one started earlier, say): refused too.
      expectConfirmationRequired(
        await relay("/auth/two-factor/totp/confirm", { method: "POST", key: owner.relayKey, body: { code: "123456" } }),
      );
      // 3. The "it is you" proof without the password: nothing to give.
      expect((await relay("/auth/confirm", { method: "POST", key: owner.relayKey, body: { code: "aaaa-bbbb-cccc-dddd" } })).status).toBe(
        401,
      );
      // 4. The e-mail change needs the password in its own request.
      const attacker = `attacker-${owner.id}@example.com`;
      expect((await relay("/users/@me/email", { method: "POST", key: owner.relayKey, body: { email: attacker } })).status).toBe(400);
      // 5. So the reset mail goes nowhere but the owner's address.
      await requestPasswordReset(attacker, "203.0.113.9");
      expect((await db().user.findUniqueOrThrow({ where: { id: owner.id } })).email).toBe(`owner-${owner.id}@example.com`);
      expect(mailbox.received.filter((m) => m.to.includes(attacker))).toEqual([]);
    } finally {
      await mailbox.close();
    }
  });

  it("a factor added in a session cannot confirm that session's sensitive changes in the window", async () => {
    const mailbox = await startMailbox();
    try {
      const owner = await createTestUser();
      await withPassword(owner.id, `owner-${owner.id}@example.com`);
      // The stolen session was confirmed a moment ago (the owner's own sign-in on it).
      await confirmedAt(owner, new Date());
      const { secret, codes } = await plantTotp(owner);
      await confirmedAt(owner, HOUR_AGO());

      // The new factor's recovery code is no "it is you" proof, and it is not used up by the try.
      expectConfirmationRequired(await relay("/auth/confirm", { method: "POST", key: owner.relayKey, body: { code: codes[0] } }));
      expect(await db().recoveryCode.count({ where: { userId: owner.id, usedAt: null } })).toBe(10);
      // Nor is a code from the planted authenticator.
      const code = totpAt(secret, Date.now() + 30_000);
      expectConfirmationRequired(await relay("/auth/confirm", { method: "POST", key: owner.relayKey, body: { code } }));
      // Changes that take the proof in their own request refuse it the same way.
      const attacker = `attacker-${owner.id}@example.com`;
      expectConfirmationRequired(
        await relay("/users/@me/email", { method: "POST", key: owner.relayKey, body: { email: attacker, code: codes[1] } }),
      );
      expectConfirmationRequired(
        await relay("/auth/two-factor/recovery-codes", { method: "POST", key: owner.relayKey, body: { code: codes[1] } }),
      );
      expectConfirmationRequired(
        await relay("/auth/two-factor/disable", { method: "POST", key: owner.relayKey, body: { code: codes[1] } }),
      );
      // Adding a passkey rides on the session's confirmation, which is stale.
      expectConfirmationRequired(await relay("/auth/passkeys/options", { method: "POST", key: owner.relayKey }));
      expect((await db().user.findUniqueOrThrow({ where: { id: owner.id } })).email).toBe(`owner-${owner.id}@example.com`);
      expect(await db().emailChange.count({ where: { userId: owner.id } })).toBe(0);

      // The owner's password still confirms (a factor that existed before the change).
      expect((await relay("/auth/confirm", { method: "POST", key: owner.relayKey, body: { password: PASSWORD } })).status).toBe(200);
    } finally {
      await mailbox.close();
    }
  });

  it("past the window the e-mail change waits for the new address and the old one cancels it in one click", async () => {
    const mailbox = await startMailbox();
    try {
      const owner = await createTestUser();
      const ownerEmail = `owner-${owner.id}@example.com`;
      await withPassword(owner.id, ownerEmail);
      await confirmedAt(owner, new Date());
      const { codes } = await plantTotp(owner);
      await ageFactors(owner, FACTOR_SETTLING_MS + 60_000);

      const attacker = `attacker-${owner.id}@example.com`;
      const asked = await relay("/users/@me/email", { method: "POST", key: owner.relayKey, body: { email: attacker, code: codes[0] } });
      expect(asked.status, asked.text).toBe(200);
      expect(asked.body).toEqual({ email: ownerEmail, pending_email: attacker });
      expect((await db().user.findUniqueOrThrow({ where: { id: owner.id } })).email).toBe(ownerEmail);

      // The old address hears of it, with a one-click cancel; the new one gets its confirmation link.
      const warning = await mailbox.next(ownerEmail);
      expect(warning.raw).toContain(attacker);
      const cancel = linkIn(warning);
      expect(cancel).toMatch(/\/cancel-email-change\?token=/);
      const confirmToken = new URL(linkIn(await mailbox.next(attacker))).searchParams.get("token") ?? "";

      const cancelled = await cancelRoute(new Request(cancel));
      expect(cancelled.status).toBe(303);
      expect(cancelled.headers.get("location")).toMatch(/\/confirm-email\?cancelled=1$/);
      // The attacker's confirmation link is dead, the address stays, the reset goes to the owner only.
      await expect(confirmEmailChange(confirmToken)).rejects.toMatchObject({ type: "unauthorized" });
      expect((await db().user.findUniqueOrThrow({ where: { id: owner.id } })).email).toBe(ownerEmail);
      await requestPasswordReset(attacker, "203.0.113.9");
      expect(await db().passwordReset.count({ where: { userId: owner.id } })).toBe(0);
      // A used cancel link says so.
      expect((await cancelRoute(new Request(cancel))).headers.get("location")).toMatch(/error=cancel$/);
    } finally {
      await mailbox.close();
    }
  });
});

describe("new credentials and event destinations need a recent confirmation", () => {
  it("creating a webhook or pointing one elsewhere: sessions confirm, app keys keep working", async () => {
    const user = await createTestUser();
    await withPassword(user.id);
    await confirmedAt(user, HOUR_AGO());
    // A receiver on this machine: the address guard allows it (docs/webhooks.md).
    process.env.WEBHOOK_ALLOW_PRIVATE = "127.0.0.1";
    resetEnv();
    const body = { url: "http://127.0.0.1:9/in", events: ["upload"] };
    expectConfirmationRequired(await relay("/webhooks", { method: "POST", key: user.relayKey, body }));
    expect(await db().webhook.count({ where: { userId: user.id } })).toBe(0);

    expect((await relay("/auth/confirm", { method: "POST", key: user.relayKey, body: { password: PASSWORD } })).status).toBe(200);
    const made = await relay("/webhooks", { method: "POST", key: user.relayKey, body });
    expect(made.status, made.text).toBe(200);
    const id: string = made.body.webhook.id;

    await confirmedAt(user, HOUR_AGO());
    const moved = await relay(`/webhooks/${id}`, { method: "PATCH", key: user.relayKey, body: { url: "http://127.0.0.1:9/elsewhere" } });
    expectConfirmationRequired(moved);
    // Turning it off is no new destination.
    expect((await relay(`/webhooks/${id}`, { method: "PATCH", key: user.relayKey, body: { enabled: false } })).status).toBe(200);
    // An app key with gallery access cannot confirm and keeps the right (docs/security.md).
    const byKey = await api("/webhooks", { method: "POST", key: user.apiKey, body });
    expect(byKey.status, byKey.text).toBe(200);
  });
});
