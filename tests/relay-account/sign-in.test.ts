/**
 * Sign-in and sessions: POST /relay/auth/login and /relay/auth/register (real scrypt
 * hashes), GET /sessions, DELETE /sessions/{id}, DELETE /sessions, device names.
 * One file rather than two: each test file pays a few seconds of start-up.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { REGISTER_ACCOUNT_LIMIT, REGISTER_IP_LIMIT } from "@/lib/auth/attempts";
import { issueKey } from "@/lib/crypto/keys";
import { verifyPassword } from "@/lib/crypto/password";
import { db } from "@/lib/db/client";
import { deviceName, UNKNOWN_DEVICE } from "@/lib/sessions/device-name";
import { MAX_SESSIONS_PER_USER, openSession } from "@/lib/sessions/devices";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestTeam, createTestUser, type TestUser } from "../support/fixtures";
import { api, relay, type Reply } from "../support/http";
import { freshName, PASSWORD, withPassword, withRegistration } from "./support";

useTestDatabase();
useCounterStore({ perTest: true });

const CHROME_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

const login = (body: object, headers: Record<string, string> = {}) => relay("/auth/login", { method: "POST", body, headers });
const register = (body: object, headers: Record<string, string> = {}, ip?: string) =>
  relay("/auth/register", { method: "POST", body, headers, ip });

function expectSignedIn(reply: Reply): { key: string; session: { id: string; name: string } } {
  expect(reply.status, reply.text).toBe(200);
  expect(Object.keys(reply.body).sort()).toEqual(["key", "session"]);
  expect(reply.body.key).toMatch(/^mhr_[A-Za-z0-9_-]{43}$/);
  expect(reply.body.session).toMatchObject({ current: true });
  expect(Object.keys(reply.body.session).sort()).toEqual(["created_at", "current", "id", "last_active_at", "name"]);
  expect(new Date(reply.body.session.created_at).toISOString()).toBe(reply.body.session.created_at);
  return reply.body;
}

let alice: TestUser;
const aliceEmail = () => `${alice.username}@example.com`;
beforeAll(async () => {
  alice = await createTestUser();
  await withPassword(alice.id, aliceEmail());
});

describe("POST /relay/auth/login", () => {
  it("signs in by username (any case) and returns a working relay-key and its session", async () => {
    const signedIn = expectSignedIn(
      await login({ username: alice.username.toUpperCase(), password: PASSWORD }, { "user-agent": CHROME_WINDOWS }),
    );
    expect(signedIn.session.name).toBe("Chrome on Windows");
    const me = await relay("/users/@me", { key: signedIn.key });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(alice.id);
    const sessions = await relay("/sessions", { key: signedIn.key });
    expect(sessions.body.sessions.find((s: { current: boolean }) => s.current).id).toBe(signedIn.session.id);
  });

  it("signs in by email, and names the session after the `device` field when given", async () => {
    const signedIn = expectSignedIn(
      await login(
        { username: ` ${aliceEmail().toUpperCase()} `, password: PASSWORD, device: "  Kitchen iPad " },
        { "user-agent": CHROME_WINDOWS },
      ),
    );
    expect(signedIn.session.name).toBe("Kitchen iPad");
    expect((await relay("/users/@me", { key: signedIn.key })).body.id).toBe(alice.id);
  });

  it("stores the session's user agent and address, never the key", async () => {
    const signedIn = expectSignedIn(
      await login({ username: alice.username, password: PASSWORD }, { "user-agent": "Relay/3.1 (iPhone; iOS 18.1)" }),
    );
    expect(signedIn.session.name).toBe("Relay on iPhone");
    const row = await db().relaySession.findUniqueOrThrow({ where: { id: signedIn.session.id } });
    expect(row.userAgent).toBe("Relay/3.1 (iPhone; iOS 18.1)");
    expect(row.ip).toBe("198.51.100.7");
    expect(row.keyHash).not.toContain(signedIn.key);
  });

  it("answers every kind of wrong credentials with the same 401", async () => {
    const noPassword = await createTestUser(); // created without a password (operator or OAuth account)
    const attempts = [
      { username: alice.username, password: "wrong password" },
      { username: aliceEmail(), password: "wrong password" },
      { username: freshName("nobody"), password: PASSWORD },
      { username: "nobody@example.com", password: PASSWORD },
      { username: noPassword.username, password: PASSWORD },
    ];
    const messages = new Set<string>();
    for (const body of attempts) {
      const reply = await login(body);
      expect(reply.status, JSON.stringify(body)).toBe(401);
      expect(reply.body.error.type).toBe("unauthorized");
      messages.add(reply.body.error.message);
    }
    expect(messages.size).toBe(1);
    expect([...messages][0]).not.toMatch(/not found|unknown|no such|exist/i);
  });

  it("tells a suspended account so only after the right password", async () => {
    const suspended = await createTestUser();
    await withPassword(suspended.id);
    await db().user.update({ where: { id: suspended.id }, data: { suspended: true } });
    expect((await login({ username: suspended.username, password: "wrong password" })).status).toBe(401);
    const reply = await login({ username: suspended.username, password: PASSWORD });
    expect(reply.status).toBe(403);
    expect(reply.body.error.type).toBe("suspended");
  });

  it("rejects a missing or malformed body with 400, and ignores key headers", async () => {
    expect((await login({ username: alice.username })).status).toBe(400);
    expect((await login({ password: PASSWORD })).status).toBe(400);
    expect((await login({ username: alice.username, password: PASSWORD, device: "x".repeat(101) })).status).toBe(400);
    expect((await login({ username: alice.username, password: PASSWORD, device: "line\nbreak" })).status).toBe(400);
    const withBadKey = await relay("/auth/login", {
      method: "POST",
      key: "mhr_not-a-real-key-at-all-xxxxxxxxx",
      body: { username: alice.username, password: PASSWORD },
    });
    expect(withBadKey.status).toBe(200);
  });
});

describe("POST /relay/auth/register", () => {
  it("creates the account and signs it in when sign-up is open", async () => {
    const username = freshName("New_");
    const reply = await withRegistration("open", () =>
      register({ username, password: "a long password", email: `${username}@Example.com` }, { "user-agent": CHROME_WINDOWS }),
    );
    const signedIn = expectSignedIn(reply);
    expect(signedIn.session.name).toBe("Chrome on Windows");
    const me = await relay("/users/@me", { key: signedIn.key });
    expect(me.body).toMatchObject({ username, email: `${username.toLowerCase()}@example.com`, plan: "free" });
    const row = await db().user.findUniqueOrThrow({ where: { id: me.body.id } });
    expect(await verifyPassword("a long password", row.passwordHash)).toBe(true);
    // And the password signs in again.
    expectSignedIn(await login({ username, password: "a long password" }));
  });

  it("applies the account rules: taken names, bad names, short passwords, bad emails", async () => {
    await withRegistration("open", async () => {
      const taken = await register({ username: alice.username.toUpperCase(), password: "a long password" });
      expect(taken.status).toBe(400);
      expect(taken.body.error.message).toMatch(/taken/);
      expect((await register({ username: "has space", password: "a long password" })).status).toBe(400);
      expect((await register({ username: "@me", password: "a long password" })).status).toBe(400);
      expect((await register({ username: freshName(), password: "short" })).status).toBe(400);
      expect((await register({ username: freshName(), password: "a long password", email: "not-an-email" })).status).toBe(400);
      const emailTaken = await register({ username: freshName(), password: "a long password", email: aliceEmail() });
      expect(emailTaken.status).toBe(400);
    });
  });

  it("is 403 forbidden when sign-up is closed", async () => {
    const reply = await withRegistration("closed", () => register({ username: freshName(), password: "a long password" }));
    expect(reply.status).toBe(403);
    expect(reply.body.error.type).toBe("forbidden");
  });

  it("needs a valid, unused, unexpired invite code when sign-up is by invite", async () => {
    await db().invite.createMany({
      data: [
        { code: "GOOD-CODE-1", createdById: alice.id },
        { code: "OLD-CODE", expiresAt: new Date(Date.now() - 1000) },
      ],
    });
    await withRegistration("invite", async () => {
      const body = (invite?: string) => ({ username: freshName("inv"), password: "a long password", ...(invite ? { invite } : {}) });
      for (const invite of [undefined, "NO-SUCH-CODE", "OLD-CODE"]) {
        const reply = await register(body(invite));
        expect(reply.status, String(invite)).toBe(403);
        expect(reply.body.error.type).toBe("forbidden");
      }
      // A failed sign-up (name taken) leaves the code usable.
      expect((await register({ username: alice.username, password: "a long password", invite: "GOOD-CODE-1" })).status).toBe(400);
      const ok = expectSignedIn(await register(body("GOOD-CODE-1")));
      const me = await relay("/users/@me", { key: ok.key });
      const invite = await db().invite.findUniqueOrThrow({ where: { code: "GOOD-CODE-1" } });
      expect(invite.usedById).toBe(me.body.id);
      expect(invite.usedAt).not.toBeNull();
      const again = await register(body("GOOD-CODE-1"));
      expect(again.status).toBe(403);
    });
  });

  it(`limits attempts to ${REGISTER_IP_LIMIT} per address per hour`, async () => {
    await withRegistration("open", async () => {
      // Invalid names fail before any hashing, which keeps this fast; they count all the same.
      // Each is another name, so only the address's count fills up.
      for (let i = 0; i < REGISTER_IP_LIMIT; i++) {
        expect((await register({ username: `bad name ${i}`, password: "a long password" }, {}, "192.0.2.77")).status).toBe(400);
      }
      const refused = await register({ username: freshName(), password: "a long password" }, {}, "192.0.2.77");
      expect(refused.status).toBe(429);
      expect(refused.body.error.type).toBe("rate_limited");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await register({ username: alice.username, password: "a long password" }, {}, "192.0.2.78")).status).toBe(400);
    });
  });
});

describe("sign-up attempts per name and email", () => {
  it(`limits attempts for one username to ${REGISTER_ACCOUNT_LIMIT} per hour from any address`, async () => {
    await withRegistration("open", async () => {
      // A taken name answers 400 without hashing; probing it from many addresses is counted.
      for (let i = 0; i < REGISTER_ACCOUNT_LIMIT; i++) {
        expect((await register({ username: alice.username, password: "a long password" }, {}, `198.51.100.${i + 1}`)).status).toBe(400);
      }
      const refused = await register({ username: alice.username.toUpperCase(), password: "a long password" }, {}, "198.51.100.200");
      expect(refused.status).toBe(429);
      expect(refused.body.error.type).toBe("rate_limited");
      expect(refused.body.error.message).toMatch(/name or email/);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      // The refused attempt took no place from its address: another name still goes through.
      expect((await register({ username: "bad name", password: "a long password" }, {}, "198.51.100.200")).status).toBe(400);
    });
  });

  it(`limits attempts for one email address to ${REGISTER_ACCOUNT_LIMIT} per hour`, async () => {
    await withRegistration("open", async () => {
      const email = `${freshName()}@Example.com`;
      for (let i = 0; i < REGISTER_ACCOUNT_LIMIT; i++) {
        const reply = await register({ username: `bad name ${i}`, email, password: "a long password" }, {}, `198.51.100.${i + 50}`);
        expect(reply.status).toBe(400);
      }
      const refused = await register(
        { username: freshName(), email: email.toLowerCase(), password: "a long password" },
        {},
        "198.51.100.99",
      );
      expect(refused.status).toBe(429);
      expect(refused.body.error.type).toBe("rate_limited");
    });
  });
});

// ───────────────────────────── sessions ─────────────────────────────

interface SessionItem {
  id: string;
  name: string | null;
  current: boolean;
  created_at: string;
  last_active_at: string;
}

/** A user with their fixture session plus `extra` more, like devices signed in earlier. */
async function userWithSessions(extra: number): Promise<{ user: TestUser; keys: { id: string; key: string }[] }> {
  const user = await createTestUser();
  const keys: { id: string; key: string }[] = [];
  for (let i = 0; i < extra; i++) {
    const { key, session } = await openSession({ userId: user.id, name: `Device ${i}` });
    keys.push({ id: session.id, key });
  }
  return { user, keys };
}

const sessionsOf = async (key: string): Promise<SessionItem[]> => {
  const reply = await relay("/sessions", { key });
  expect(reply.status, reply.text).toBe(200);
  return reply.body.sessions;
};

describe("GET /sessions", () => {
  it("lists the caller's sessions, unpaged, marking the calling one as current", async () => {
    const { user, keys } = await userWithSessions(2);
    await createTestUser(); // someone else's sessions stay out
    const reply = await relay("/sessions", { key: user.relayKey });
    expect(Object.keys(reply.body)).toEqual(["sessions"]);
    const sessions: SessionItem[] = reply.body.sessions;
    expect(sessions).toHaveLength(3);
    expect(sessions.filter((s) => s.current)).toHaveLength(1);
    expect(sessions.find((s) => s.current)!.name).toBe("Test device");
    expect(sessions.map((s) => s.id)).toEqual(expect.arrayContaining(keys.map((k) => k.id)));
    for (const s of sessions) {
      expect(Object.keys(s).sort()).toEqual(["created_at", "current", "id", "last_active_at", "name"]);
      expect(new Date(s.created_at).toISOString()).toBe(s.created_at);
      expect(new Date(s.last_active_at).toISOString()).toBe(s.last_active_at);
    }
    // Seen from another device, that one is current.
    expect((await sessionsOf(keys[0].key)).find((s) => s.current)!.id).toBe(keys[0].id);
  });

  it("lists the most recently active first; activity moves last_active_at (coarsely)", async () => {
    const { user, keys } = await userWithSessions(1);
    const old = new Date(Date.now() - 10 * 60_000);
    await db().relaySession.updateMany({ where: { userId: user.id }, data: { lastActiveAt: old } });
    await db().relaySession.update({ where: { id: keys[0].id }, data: { lastActiveAt: new Date(Date.now() - 5 * 60_000) } });
    expect((await sessionsOf(keys[0].key))[0].id).toBe(keys[0].id);
    // That request was activity on keys[0]; it is recorded without holding the request up.
    await expect
      .poll(async () => (await db().relaySession.findUniqueOrThrow({ where: { id: keys[0].id } })).lastActiveAt.getTime(), {
        timeout: 2000,
      })
      .toBeGreaterThan(Date.now() - 60_000);
  });

  it(`keeps at most ${MAX_SESSIONS_PER_USER} sessions: a new sign-in ends the least recently active`, async () => {
    const user = await createTestUser();
    const fixtureSession = await db().relaySession.findFirstOrThrow({ where: { userId: user.id } });
    await db().relaySession.update({ where: { id: fixtureSession.id }, data: { lastActiveAt: new Date(Date.now() - 3_600_000) } });
    // Fill up to the cap with more recently active devices.
    await db().relaySession.createMany({
      data: Array.from({ length: MAX_SESSIONS_PER_USER - 1 }, (_, i) => ({
        userId: user.id,
        keyHash: issueKey("relay").hash,
        name: `Device ${i}`,
        lastActiveAt: new Date(Date.now() - i * 1000),
      })),
    });

    const { key, session } = await openSession({ userId: user.id, name: "New phone" });
    expect(await db().relaySession.count({ where: { userId: user.id } })).toBe(MAX_SESSIONS_PER_USER);
    expect(await db().relaySession.findUnique({ where: { id: fixtureSession.id } })).toBeNull();
    expect((await relay("/users/@me", { key: user.relayKey })).status).toBe(401);
    const listed = await sessionsOf(key);
    expect(listed).toHaveLength(MAX_SESSIONS_PER_USER);
    expect(listed.find((s) => s.current)!.id).toBe(session.id);
  });
});

describe("DELETE /sessions/{id}", () => {
  it("signs that device out at once; the caller stays signed in", async () => {
    const { user, keys } = await userWithSessions(1);
    expect((await relay("/users/@me", { key: keys[0].key })).status).toBe(200);
    const reply = await relay(`/sessions/${keys[0].id}`, { method: "DELETE", key: user.relayKey });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ id: keys[0].id, deleted: true });
    const next = await relay("/users/@me", { key: keys[0].key });
    expect(next.status).toBe(401);
    expect(next.body.error.type).toBe("unauthorized");
    expect((await relay("/users/@me", { key: user.relayKey })).status).toBe(200);
    expect(await sessionsOf(user.relayKey)).toHaveLength(1);
  });

  it("can sign out the calling session itself", async () => {
    const { keys } = await userWithSessions(1);
    const reply = await relay(`/sessions/${keys[0].id}`, { method: "DELETE", key: keys[0].key });
    expect(reply.body).toEqual({ id: keys[0].id, deleted: true });
    expect((await relay("/sessions", { key: keys[0].key })).status).toBe(401);
  });

  it("is 404 for another user's session (which keeps working) and for unknown or deleted ids", async () => {
    const { user } = await userWithSessions(0);
    const other = await userWithSessions(1);
    const foreign = await relay(`/sessions/${other.keys[0].id}`, { method: "DELETE", key: user.relayKey });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.type).toBe("not_found");
    expect((await relay("/users/@me", { key: other.keys[0].key })).status).toBe(200);
    expect((await relay("/sessions/nope123", { method: "DELETE", key: user.relayKey })).status).toBe(404);
    await relay(`/sessions/${other.keys[0].id}`, { method: "DELETE", key: other.user.relayKey });
    expect((await relay(`/sessions/${other.keys[0].id}`, { method: "DELETE", key: other.user.relayKey })).status).toBe(404);
  });
});

describe("DELETE /sessions", () => {
  it("signs every session out, the calling one included, and says how many", async () => {
    const { user, keys } = await userWithSessions(3);
    const bystander = await createTestUser();
    const reply = await relay("/sessions", { method: "DELETE", key: user.relayKey });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ deleted_count: 4 });
    for (const key of [user.relayKey, ...keys.map((k) => k.key)]) {
      expect((await relay("/users/@me", { key })).status).toBe(401);
    }
    expect((await relay("/users/@me", { key: bystander.relayKey })).status).toBe(200);
    // App keys are not sessions: the API keeps working.
    expect((await api("/users/@me", { key: user.apiKey })).status).toBe(200);
  });
});

describe("keys", () => {
  it("every account endpoint refuses team keys and missing keys with 401", async () => {
    const owner = await createTestUser({ plan: "ultra" });
    const team = await createTestTeam(owner.id);
    const endpoints: [string, string, object?][] = [
      ["GET", "/sessions"],
      ["DELETE", "/sessions/abc"],
      ["DELETE", "/sessions"],
      ["PATCH", "/users/@me", { nickname: "x" }],
      ["POST", "/users/@me/avatar"],
      ["DELETE", "/users/@me/avatar"],
      ["POST", "/users/@me/banner"],
      ["DELETE", "/users/@me/banner"],
      ["GET", "/preferences"],
      ["PATCH", "/preferences", { likes: false }],
    ];
    for (const [method, path, body] of endpoints) {
      for (const key of [team.key, undefined]) {
        const reply = await relay(path, { method, key, body });
        expect(reply.status, `${method} ${path} ${key ? "team" : "none"}`).toBe(401);
        expect(reply.body.error.type).toBe("unauthorized");
      }
    }
    // An api-key is not a relay-key either.
    expect((await relay("/sessions", { key: owner.apiKey })).status).toBe(401);
  });
});

describe("device names", () => {
  it.each([
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      "Chrome on Windows",
    ],
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
      "Edge on Windows",
    ],
    [
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
      "Safari on macOS",
    ],
    ["Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "Firefox on Linux"],
    [
      "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
      "Chrome on Android",
    ],
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
      "Safari on iPhone",
    ],
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0 Mobile/15E148 Safari/604.1",
      "Chrome on iPhone",
    ],
    [
      "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      "Chrome on ChromeOS",
    ],
    [
      "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0 Mobile Safari/537.36",
      "Samsung Internet on Android",
    ],
    ["Relay/3.1 (iPhone; iOS 18.1)", "Relay on iPhone"],
    ["Relay/3.1 (Android 14; Pixel 8)", "Relay on Android"],
    ["ShareX/16.1.0", "ShareX"],
    ["curl/8.5.0", "curl"],
    ["MyUploader/2.1 CFNetwork/1568 Darwin/24.1.0", "MyUploader"],
    ["", UNKNOWN_DEVICE],
    ["Mozilla/5.0 (compatible)", UNKNOWN_DEVICE],
    ["\u0000\u0001garbage", UNKNOWN_DEVICE],
  ])("%s → %s", (ua, name) => {
    expect(deviceName(ua)).toBe(name);
  });

  it("prefers the client's own name, trimmed and capped", () => {
    expect(deviceName("curl/8.5.0", "  Work laptop  ")).toBe("Work laptop");
    expect(deviceName("curl/8.5.0", "   ")).toBe("curl");
    expect(deviceName(null, "x".repeat(300))).toHaveLength(100);
    expect(deviceName(null)).toBe(UNKNOWN_DEVICE);
  });
});
