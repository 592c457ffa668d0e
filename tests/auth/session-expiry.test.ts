/**
 * Relay and web sessions end by themselves (issue 27, lib/sessions/expiry.ts): after
 * SESSION_IDLE_DAYS unused (default 30) or SESSION_MAX_DAYS after sign-in (default 365).
 * An ended session is refused on the next request, deleted, and left out of the list.
 */
import { encode } from "next-auth/jwt";
import { afterEach, describe, expect, it } from "vitest";
import { authenticateKey } from "@/lib/auth/authenticate";
import { resolveWebSessionToken, webAuthSecret } from "@/lib/auth/web-session";
import { parseEnv, resetEnv } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { listSessions, openSession } from "@/lib/sessions/devices";
import { useTestDatabase } from "../support/db";
import { createTestUser } from "../support/fixtures";

useTestDatabase();

const DAY = 24 * 60 * 60 * 1000;
const ago = (days: number) => new Date(Date.now() - days * DAY);

afterEach(() => {
  delete process.env.SESSION_IDLE_DAYS;
  delete process.env.SESSION_MAX_DAYS;
  resetEnv();
});

async function relaySession() {
  const user = await createTestUser();
  const opened = await openSession({ userId: user.id, name: "Phone" });
  return { user, key: opened.key, id: opened.session.id };
}

describe("session lifetimes", () => {
  it("settings: whole days, 0 for never, nonsense refused", () => {
    expect(parseEnv({}).SESSION_IDLE_DAYS).toBeUndefined();
    expect(parseEnv({ SESSION_IDLE_DAYS: "7", SESSION_MAX_DAYS: "0" })).toMatchObject({ SESSION_IDLE_DAYS: 7, SESSION_MAX_DAYS: 0 });
    expect(() => parseEnv({ SESSION_MAX_DAYS: "-1" })).toThrow();
  });

  it("a relay-key unused for longer than the idle time (default 30 days) ends", async () => {
    const { user, key, id } = await relaySession();
    await db().relaySession.update({ where: { id }, data: { lastActiveAt: ago(29) } });
    expect(await authenticateKey(key, "relay-key")).toMatchObject({ kind: "session", sessionId: id });
    await db().relaySession.update({ where: { id }, data: { lastActiveAt: ago(31) } });
    expect((await listSessions(user.id)).map((s) => s.id)).not.toContain(id);
    expect(await authenticateKey(key, "relay-key")).toBeNull();
    await expect.poll(() => db().relaySession.count({ where: { id } })).toBe(0);
  });

  it("a relay-key in use ends at its absolute lifetime (default 365 days); settings move both", async () => {
    const { key, id } = await relaySession();
    await db().relaySession.update({ where: { id }, data: { createdAt: ago(366), lastActiveAt: new Date() } });
    expect(await authenticateKey(key, "relay-key")).toBeNull();

    const other = await relaySession();
    await db().relaySession.update({ where: { id: other.id }, data: { createdAt: ago(400), lastActiveAt: ago(3) } });
    process.env.SESSION_IDLE_DAYS = "2";
    process.env.SESSION_MAX_DAYS = "0";
    resetEnv();
    expect(await authenticateKey(other.key, "relay-key")).toBeNull();
    process.env.SESSION_IDLE_DAYS = "0";
    resetEnv();
    const third = await relaySession();
    await db().relaySession.update({ where: { id: third.id }, data: { createdAt: ago(4000), lastActiveAt: ago(4000) } });
    expect(await authenticateKey(third.key, "relay-key")).toMatchObject({ sessionId: third.id });
  });

  it("a web session cookie ends the same way", async () => {
    const { user, id } = await relaySession();
    const token = await encode({ token: { uid: user.id, sid: id }, secret: webAuthSecret() });
    expect(await resolveWebSessionToken(token)).toMatchObject({ sessionId: id });
    await db().relaySession.update({ where: { id }, data: { lastActiveAt: ago(31) } });
    expect(await resolveWebSessionToken(token)).toBeNull();
    await expect.poll(() => db().relaySession.count({ where: { id } })).toBe(0);
  });
});
