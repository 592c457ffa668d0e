/**
 * Two-factor sign-in over the Relay endpoints, on the test database (SQLite, or PostgreSQL
 * with TEST_DATABASE_URL): enrolment, codes at Relay login, the replay guard, recovery codes
 * used once (also when two requests race), the limit on wrong codes, turning it off, and
 * the secret encrypted at rest. The web's second step uses the same functions
 * (tests/e2e/two-factor.spec.ts).
 */
import { describe, expect, it, vi } from "vitest";
import { SECOND_FACTOR_ACCOUNT_LIMIT } from "@/lib/auth/attempts";
import { issuePendingTicket, PENDING_TTL_SECONDS, redeemPendingTicket } from "@/lib/auth/factors/pending";
import { openSecret } from "@/lib/auth/factors/secret-box";
import { base32Decode, totpAt } from "@/lib/auth/factors/totp";
import { issueChallenge, redeemChallenge } from "@/lib/auth/factors/webauthn-challenge";
import { runAdmin } from "@/lib/cli/admin";
import { db } from "@/lib/db/client";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser, type TestUser } from "../support/fixtures";
import { relay, type Reply } from "../support/http";
import { PASSWORD, withPassword } from "../relay-account/support";

useTestDatabase();
useCounterStore({ perTest: true });
// Every sign-in runs a real scrypt hash (128 MiB): seconds each on a loaded 2-core machine.
vi.setConfig({ testTimeout: 120_000 });

const login = (user: TestUser, extra: object = {}) =>
  relay("/auth/login", { method: "POST", body: { username: user.username, password: PASSWORD, ...extra } });

function expectError(reply: Reply, status: number, type: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body.error.type).toBe(type);
}

/** Enrolling needs a recent confirmation (docs/security.md): as if the password had just been given in the session. */
const confirmNow = (user: TestUser) => db().relaySession.updateMany({ where: { userId: user.id }, data: { confirmedAt: new Date() } });

/** A factor confirms only past its window (lib/auth/factors/settling.ts): as if it had been enrolled 11 minutes ago. */
async function settle(user: TestUser): Promise<void> {
  const at = new Date(Date.now() - 11 * 60 * 1000);
  await db().totpFactor.updateMany({ where: { userId: user.id }, data: { enabledAt: at } });
  await db().recoveryCode.updateMany({ where: { userId: user.id }, data: { createdAt: at } });
}

/** A user with a password and two-factor sign-in on (settled); returns the secret and the recovery codes. */
async function enrolled(): Promise<{ user: TestUser; secret: Buffer; codes: string[]; confirmedAt: number }> {
  const user = await createTestUser();
  await withPassword(user.id);
  await confirmNow(user);
  const setup = await relay("/auth/two-factor/totp", { method: "POST", key: user.relayKey });
  expect(setup.status, setup.text).toBe(200);
  const secret = base32Decode(setup.body.secret)!;
  const confirmedAt = Date.now();
  const confirmed = await relay("/auth/two-factor/totp/confirm", {
    method: "POST",
    key: user.relayKey,
    body: { code: totpAt(secret, confirmedAt) },
  });
  expect(confirmed.status, confirmed.text).toBe(200);
  await settle(user);
  return { user, secret, codes: confirmed.body.recovery_codes, confirmedAt };
}

describe("enrolment", () => {
  it("is off until confirmed with a right code, then returns 10 distinct recovery codes once", async () => {
    const user = await createTestUser();
    await withPassword(user.id);
    await confirmNow(user);
    const before = await relay("/auth/two-factor", { key: user.relayKey });
    expect(before.body).toEqual({ totp_enabled: false, recovery_codes_left: 0, passkey_count: 0 });

    const setup = await relay("/auth/two-factor/totp", { method: "POST", key: user.relayKey });
    expect(setup.status, setup.text).toBe(200);
    expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(setup.body.otpauth_uri);
    expect(uri.searchParams.get("secret")).toBe(setup.body.secret);
    expect(decodeURIComponent(setup.body.otpauth_uri)).toContain(`:${user.username}?`);
    // The QR code beside the key: an SVG drawn on the server, its modules one path, no script.
    const svg: string = setup.body.qr_svg;
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]* viewBox="0 0 (\d+) \1"/);
    expect(svg).toMatch(/<path [^>]*stroke="#000000"[^>]* d="M[^"]{200,}"/);
    expect(svg).not.toMatch(/<script|on\w+=/i);
    // Not in force yet: a password alone still signs in.
    expect((await login(user)).status).toBe(200);

    const secret = base32Decode(setup.body.secret)!;
    const now = Date.now();
    const wrong = String((Number(totpAt(secret, now)) + 500_000) % 1_000_000).padStart(6, "0");
    expectError(
      await relay("/auth/two-factor/totp/confirm", { method: "POST", key: user.relayKey, body: { code: wrong } }),
      400,
      "invalid_request",
    );
    expect((await relay("/auth/two-factor", { key: user.relayKey })).body.totp_enabled).toBe(false);

    const confirmed = await relay("/auth/two-factor/totp/confirm", {
      method: "POST",
      key: user.relayKey,
      body: { code: totpAt(secret, now) },
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    const codes: string[] = confirmed.body.recovery_codes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
    expect((await relay("/auth/two-factor", { key: user.relayKey })).body).toEqual({
      totp_enabled: true,
      recovery_codes_left: 10,
      passkey_count: 0,
    });
    // A second set-up would silently replace the app: refused while on.
    expectError(await relay("/auth/two-factor/totp", { method: "POST", key: user.relayKey }), 400, "invalid_request");
  });

  it("keeps the secret encrypted, bound to its account, and the recovery codes only hashed", async () => {
    const { user, secret, codes } = await enrolled();
    const row = await db().totpFactor.findUniqueOrThrow({ where: { userId: user.id } });
    expect(row.secretEncrypted.startsWith("v1.")).toBe(true);
    expect(row.secretEncrypted).not.toContain(secret.toString("base64url"));
    expect(row.secretEncrypted).not.toContain(secret.toString("hex"));
    expect(openSecret(row.secretEncrypted, user.id)).toEqual(secret);
    expect(openSecret(row.secretEncrypted, "someone-else")).toBeNull();
    const stored = await db().recoveryCode.findMany({ where: { userId: user.id } });
    expect(stored).toHaveLength(10);
    for (const code of codes) expect(stored.some((r) => r.codeHash.includes(code.replace(/-/g, "")))).toBe(false);
  });
});

describe("Relay login with two-factor sign-in", () => {
  it("asks for a code after the right password, and accepts each TOTP code once", async () => {
    const { user, secret, confirmedAt } = await enrolled();
    const noCode = await login(user);
    expectError(noCode, 401, "unauthorized");
    expect(noCode.body.error.two_factor_required).toBe(true);
    // A wrong password is told nothing about the second factor.
    const wrongPassword = await relay("/auth/login", { method: "POST", body: { username: user.username, password: "not it at all" } });
    expectError(wrongPassword, 401, "unauthorized");
    expect(wrongPassword.body.error.two_factor_required).toBeUndefined();

    // The confirming code's step is used: the same code again is a replay. (The code of the
    // confirmation's own moment, not of now: scrypt-paced sign-ins may cross a step boundary.)
    expectError(await login(user, { code: totpAt(secret, confirmedAt) }), 401, "unauthorized");
    const next = totpAt(secret, Math.max(Date.now(), confirmedAt + 30_000));
    const signedIn = await login(user, { code: next });
    expect(signedIn.status, signedIn.text).toBe(200);
    expect(signedIn.body.key).toMatch(/^mhr_/);
    expectError(await login(user, { code: next }), 401, "unauthorized");
  });

  it("accepts a recovery code once, in any case and without dashes, and counts what is left", async () => {
    const { user, codes } = await enrolled();
    const [first, second] = codes;
    expect((await login(user, { code: first })).status).toBe(200);
    expectError(await login(user, { code: first }), 401, "unauthorized");
    expect((await login(user, { code: second.replace(/-/g, "").toUpperCase() })).status).toBe(200);
    expect((await relay("/auth/two-factor", { key: user.relayKey })).body.recovery_codes_left).toBe(8);
  });

  it("lets only one of two racing requests use a recovery code", async () => {
    const { user, codes } = await enrolled();
    const replies = await Promise.all([login(user, { code: codes[0] }), login(user, { code: codes[0] })]);
    expect(replies.map((r) => r.status).sort()).toEqual([200, 401]);
  });

  it(`refuses every code after ${SECOND_FACTOR_ACCOUNT_LIMIT} wrong ones, the right one included`, async () => {
    const { user, codes } = await enrolled();
    // Wrong codes given to confirm a change count like wrong codes at sign-in (and cost no scrypt here).
    for (let i = 0; i < SECOND_FACTOR_ACCOUNT_LIMIT; i++) {
      expectError(
        await relay("/auth/two-factor/disable", { method: "POST", key: user.relayKey, body: { code: "aaaa-bbbb-cccc-dddd" } }),
        401,
        "unauthorized",
      );
    }
    const refused = await login(user, { code: codes[0] });
    expectError(refused, 429, "rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // The refused try did not use the code up.
    expect(await db().recoveryCode.count({ where: { userId: user.id, usedAt: null } })).toBe(10);
  });
});

describe("turning it off and new recovery codes", () => {
  it("needs the password or a code; afterwards the password alone signs in", async () => {
    const { user, codes } = await enrolled();
    expectError(await relay("/auth/two-factor/disable", { method: "POST", key: user.relayKey, body: {} }), 400, "invalid_request");
    expectError(
      await relay("/auth/two-factor/disable", { method: "POST", key: user.relayKey, body: { password: "wrong password" } }),
      401,
      "unauthorized",
    );
    expect((await relay("/auth/two-factor", { key: user.relayKey })).body.totp_enabled).toBe(true);

    const renewed = await relay("/auth/two-factor/recovery-codes", { method: "POST", key: user.relayKey, body: { code: codes[0] } });
    expect(renewed.status, renewed.text).toBe(200);
    expect(renewed.body.recovery_codes).toHaveLength(10);
    // The old set is gone.
    expectError(await login(user, { code: codes[1] }), 401, "unauthorized");

    const off = await relay("/auth/two-factor/disable", { method: "POST", key: user.relayKey, body: { password: PASSWORD } });
    expect(off.status, off.text).toBe(200);
    expect(off.body).toEqual({ totp_enabled: false });
    expect(await db().recoveryCode.count({ where: { userId: user.id } })).toBe(0);
    expect(await db().totpFactor.count({ where: { userId: user.id } })).toBe(0);
    expect((await login(user)).status).toBe(200);
  });
});

describe("the operator's reset", () => {
  it("admin user two-factor-reset turns it off so the password alone signs in again", async () => {
    const { user } = await enrolled();
    expectError(await login(user), 401, "unauthorized");
    const result = await runAdmin(["user", "two-factor-reset", "--user", user.username]);
    expect(result).toEqual({ exitCode: 0, output: { id: user.id, two_factor: false } });
    expect(await db().recoveryCode.count({ where: { userId: user.id } })).toBe(0);
    expect((await login(user)).status).toBe(200);
    const entry = await db().auditEntry.findFirstOrThrow({ where: { action: "user.two_factor_reset", targetId: user.id } });
    expect(JSON.parse(entry.detail ?? "{}")).toEqual({ removed: true });
  });
});

describe("the tickets and challenges between steps", () => {
  it("a pending ticket names its user until it expires, and not when altered", () => {
    const now = Date.now();
    const ticket = issuePendingTicket("user-1", now);
    expect(redeemPendingTicket(ticket, now)).toBe("user-1");
    expect(redeemPendingTicket(ticket, now + (PENDING_TTL_SECONDS + 1) * 1000)).toBeNull();
    expect(redeemPendingTicket(ticket.replace("user-1", "user-2"), now)).toBeNull();
    const [uid, expiry, mac] = ticket.split(".");
    expect(redeemPendingTicket([uid, Number(expiry) + 3600, mac].join("."), now)).toBeNull();
    expect(redeemPendingTicket("garbage", now)).toBeNull();
  });

  it("a WebAuthn challenge is good once, for its purpose and user only", async () => {
    const encode = (text: string) => Buffer.from(text).toString("base64url");
    const challenge = issueChallenge("register", "user-1");
    expect(await redeemChallenge(encode(challenge), "authenticate", null)).toBe(false);
    expect(await redeemChallenge(encode(challenge), "register", "user-2")).toBe(false);
    expect(await redeemChallenge(encode(challenge), "register", "user-1")).toBe(true);
    expect(await redeemChallenge(encode(challenge), "register", "user-1")).toBe(false);
    const forged = challenge.replace(/\.[^.]+$/, ".AAAA");
    expect(await redeemChallenge(encode(forged), "register", "user-1")).toBe(false);
    const old = issueChallenge("authenticate", null, Date.now() - 10 * 60_000);
    expect(await redeemChallenge(encode(old), "authenticate", null)).toBe(false);
  });
});

describe("bad input", () => {
  it("answers the documented errors, never a 500", async () => {
    const { user } = await enrolled();
    expectError(
      await relay("/auth/two-factor/totp/confirm", { method: "POST", key: user.relayKey, body: { code: "" } }),
      400,
      "invalid_request",
    );
    expectError(
      await relay("/auth/two-factor/disable", { method: "POST", key: user.relayKey, body: { password: 5 } }),
      400,
      "invalid_request",
    );
    expectError(
      await relay("/auth/passkeys", { method: "POST", key: user.relayKey, body: { response: { id: "x" } } }),
      400,
      "invalid_request",
    );
    // Deleting a passkey needs a recent confirmation (tests/auth/recent-confirmation.test.ts).
    expect((await relay("/auth/confirm", { method: "POST", key: user.relayKey, body: { password: PASSWORD } })).status).toBe(200);
    expectError(await relay(`/auth/passkeys/${"a".repeat(40)}`, { method: "DELETE", key: user.relayKey }), 404, "not_found");
    expectError(
      await relay("/auth/passkey-login", {
        method: "POST",
        body: { response: { id: "nope", rawId: "nope", type: "public-key", response: { clientDataJSON: "e30" } } },
      }),
      401,
      "unauthorized",
    );
    expectError(await relay("/auth/two-factor", {}), 401, "unauthorized");
  });
});
