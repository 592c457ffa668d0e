/**
 * Issue 27, review finding: adding or deleting a passkey needs a recent confirmation, the
 * password or a second factor given in this session within the last 10 minutes
 * (lib/auth/confirmation.ts). A sign-in with the password counts; POST /auth/confirm renews it.
 */
import { describe, expect, it, vi } from "vitest";
import { db } from "@/lib/db/client";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser } from "../support/fixtures";
import { relay } from "../support/http";
import { PASSWORD, withPassword } from "../relay-account/support";

useTestDatabase();
useCounterStore({ perTest: true });
vi.setConfig({ testTimeout: 120_000 });

const options = (key: string) => relay("/auth/passkeys/options", { method: "POST", key });

describe("recent confirmation", () => {
  it("a session that never gave its password cannot add or delete a passkey until it confirms", async () => {
    const user = await createTestUser();
    await withPassword(user.id);
    const refused = await options(user.relayKey);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: "forbidden", confirmation_required: true });
    const del = await relay(`/auth/passkeys/${"a".repeat(20)}`, { method: "DELETE", key: user.relayKey });
    expect(del.body.error).toMatchObject({ type: "forbidden", confirmation_required: true });
    const create = await relay("/auth/passkeys", {
      method: "POST",
      key: user.relayKey,
      body: { response: { id: "x", rawId: "x", type: "public-key", response: { clientDataJSON: "e30" } } },
    });
    expect(create.body.error).toMatchObject({ type: "forbidden", confirmation_required: true });

    const wrong = await relay("/auth/confirm", { method: "POST", key: user.relayKey, body: { password: "not it" } });
    expect(wrong.status).toBe(401);
    expect((await options(user.relayKey)).status).toBe(403);

    const confirmed = await relay("/auth/confirm", { method: "POST", key: user.relayKey, body: { password: PASSWORD } });
    expect(confirmed.status, confirmed.text).toBe(200);
    const until = Date.parse(confirmed.body.confirmed_until);
    expect(until - Date.now()).toBeGreaterThan(9 * 60 * 1000);
    expect((await options(user.relayKey)).status).toBe(200);
    // Deleting is allowed now: an unknown passkey is 404 as before.
    expect((await relay(`/auth/passkeys/${"a".repeat(20)}`, { method: "DELETE", key: user.relayKey })).status).toBe(404);
  });

  it("lasts 10 minutes; a password sign-in counts as one", async () => {
    const user = await createTestUser();
    await withPassword(user.id);
    const login = await relay("/auth/login", { method: "POST", body: { username: user.username, password: PASSWORD } });
    expect(login.status, login.text).toBe(200);
    const key: string = login.body.key;
    expect((await options(key)).status).toBe(200);
    await db().relaySession.update({ where: { id: login.body.session.id }, data: { confirmedAt: new Date(Date.now() - 11 * 60 * 1000) } });
    expect((await options(key)).body.error).toMatchObject({ type: "forbidden", confirmation_required: true });
    // Another session's confirmation does not count for this one.
    await relay("/auth/confirm", { method: "POST", key: user.relayKey, body: { password: PASSWORD } });
    expect((await options(key)).status).toBe(403);
  });
});
