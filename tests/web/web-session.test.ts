/**
 * The web sign-in cookie on the API and Relay (lib/auth/web-session.ts through the real
 * dispatcher): accepted for same-origin requests only, and only while its session row
 * lives (signing the session out ends it).
 */
import { encode } from "next-auth/jwt";
import { beforeAll, describe, expect, it } from "vitest";
import { webAuthSecret } from "@/lib/auth/web-session";
import { isSameOrigin } from "@/lib/auth/same-origin";
import { openSession, revokeSession } from "@/lib/sessions/devices";
import { useTestDatabase } from "../support/db";
import { createTestUser, type TestUser } from "../support/fixtures";
import { relay, api } from "../support/http";

useTestDatabase();

let user: TestUser;
let sessionId: string;
let cookie: string;

beforeAll(async () => {
  user = await createTestUser();
  const opened = await openSession({ userId: user.id, name: "Web: Chrome on Linux" });
  sessionId = opened.session.id;
  const token = await encode({ token: { uid: user.id, sid: sessionId }, secret: webAuthSecret() });
  cookie = `other=1; next-auth.session-token=${token}`;
});

const sameOrigin = () => ({ cookie, "sec-fetch-site": "same-origin" });

describe("web session cookie", () => {
  it("authenticates a same-origin Relay and API request", async () => {
    const me = await relay("/users/@me", { headers: sameOrigin() });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(user.id);
    const sessions = await relay("/sessions", { headers: sameOrigin() });
    expect(sessions.status).toBe(200);
    expect(JSON.stringify(sessions.body)).toContain(sessionId);
    const posts = await api("/posts", { headers: sameOrigin() });
    expect(posts.status).toBe(200);
  });

  it("accepts an Origin that matches Host when Sec-Fetch-Site is absent", async () => {
    const reply = await relay("/users/@me", { headers: { cookie, origin: "http://localhost", host: "localhost" } });
    expect(reply.status).toBe(200);
  });

  it("refuses cross-site, same-site and unmarked requests (CSRF)", async () => {
    const variants: Record<string, string>[] = [
      { cookie, "sec-fetch-site": "cross-site" },
      { cookie, "sec-fetch-site": "same-site" },
      { cookie, origin: "https://evil.example", host: "localhost" },
      { cookie },
    ];
    for (const headers of variants) {
      const reply = await relay("/users/@me", { headers });
      expect(reply.status, JSON.stringify(headers)).toBe(401);
    }
  });

  it("refuses a forged or foreign token", async () => {
    const forged = await encode({ token: { uid: user.id, sid: sessionId }, secret: "not-the-secret" });
    const reply = await relay("/users/@me", { headers: { cookie: `next-auth.session-token=${forged}`, "sec-fetch-site": "same-origin" } });
    expect(reply.status).toBe(401);
    const other = await createTestUser();
    const mixed = await encode({ token: { uid: other.id, sid: sessionId }, secret: webAuthSecret() });
    const reply2 = await relay("/users/@me", { headers: { cookie: `next-auth.session-token=${mixed}`, "sec-fetch-site": "same-origin" } });
    expect(reply2.status).toBe(401);
  });

  it("a key header still wins over the cookie", async () => {
    const other = await createTestUser();
    const reply = await relay("/users/@me", { key: other.relayKey, headers: sameOrigin() });
    expect(reply.body.id).toBe(other.id);
  });

  it("stops working once the session is signed out", async () => {
    await revokeSession(user.id, sessionId);
    const reply = await relay("/users/@me", { headers: sameOrigin() });
    expect(reply.status).toBe(401);
  });

  it("isSameOrigin reads Sec-Fetch-Site first", () => {
    expect(isSameOrigin(new Headers({ "sec-fetch-site": "same-origin", origin: "https://evil.example", host: "a" }))).toBe(true);
    expect(isSameOrigin(new Headers({ "sec-fetch-site": "none" }))).toBe(false);
    expect(isSameOrigin(new Headers({ origin: "http://a.example:3000", host: "a.example:3000" }))).toBe(true);
    expect(isSameOrigin(new Headers({ origin: "null", host: "null" }))).toBe(false);
  });
});
