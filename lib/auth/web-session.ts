/**
 * Web sign-in sessions (next-auth, JWT strategy) resolved to the same Principal as a
 * relay-key. Every web sign-in opens a Relay session row (lib/sessions/devices.ts) and the
 * JWT carries that row's id: the row is checked on every request, so signing the session
 * out in "Sessions" (or DELETE /sessions/{id}) ends the web session at once, and the web
 * sign-ins are listed next to the apps' ones.
 *
 * The cookie only authenticates API/Relay calls made by our own pages: a request must be
 * same-origin (Sec-Fetch-Site, or Origin against Host), otherwise another site could make
 * a signed-in visitor's browser call the API (CSRF). Keys in headers are unaffected.
 */
import { createHmac } from "node:crypto";
import { decode } from "next-auth/jwt";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { stampActivity } from "@/lib/db/unannounced";
import { signingSecret } from "@/lib/crypto/signing";
import { isSameOrigin } from "./same-origin";
import { dropEndedSession, sessionEnded } from "@/lib/sessions/expiry";
import { accountSummary } from "./authenticate";
import type { AccountSummary, Principal } from "@/lib/types/principal";

/** next-auth's session cookie: `__Secure-` prefixed when the site runs on https. */
export const SESSION_COOKIE_NAMES = ["__Secure-next-auth.session-token", "next-auth.session-token"] as const;

/** A session's last_active_at is written at most this often (as for relay-keys). */
const ACTIVITY_RESOLUTION_MS = 60_000;

/**
 * NEXTAUTH_SECRET, else a key derived from the signing secret (itself generated once into
 * DATA_DIR), so `npm start` works with no configuration and restarts keep people signed in.
 */
export function webAuthSecret(): string {
  const configured = env().NEXTAUTH_SECRET;
  if (configured) return configured;
  return createHmac("sha256", signingSecret()).update("mediahost-nextauth-v1").digest("base64url");
}

/** The claims we put in the next-auth JWT (besides next-auth's own). */
export interface WebSessionClaims {
  /** User id. */
  uid: string;
  /** Relay session id opened at sign-in. */
  sid: string;
}

export interface WebSession {
  user: AccountSummary & { displayUsername: string; theme: string | null; avatarKey: string | null; admin: boolean };
  sessionId: string;
}

/** Decodes a session-cookie value and checks its session row; null when anything is off. */
export async function resolveWebSessionToken(token: string): Promise<WebSession | null> {
  let claims: Record<string, unknown> | null;
  try {
    claims = await decode({ token, secret: webAuthSecret() });
  } catch {
    return null;
  }
  const sid = typeof claims?.sid === "string" ? claims.sid : null;
  const uid = typeof claims?.uid === "string" ? claims.uid : null;
  if (!sid || !uid) return null;
  const session = await db().relaySession.findUnique({
    where: { id: sid },
    select: {
      userId: true,
      lastActiveAt: true,
      createdAt: true,
      user: {
        select: {
          id: true,
          displayUsername: true,
          plan: true,
          suspended: true,
          quotaOverride: true,
          theme: true,
          avatarKey: true,
          role: true,
        },
      },
    },
  });
  if (!session || session.userId !== uid) return null;
  if (sessionEnded(session.createdAt.getTime(), session.lastActiveAt.getTime())) {
    dropEndedSession(sid);
    return null;
  }
  if (Date.now() - session.lastActiveAt.getTime() > ACTIVITY_RESOLUTION_MS) {
    // Not awaited: bookkeeping must not slow or fail the request.
    // Moves no change number: no read cache reads the column (lib/db/unannounced.ts).
    stampActivity("relaySession", [sid], new Date()).catch(() => {});
  }
  const { user } = session;
  return {
    sessionId: sid,
    user: {
      ...accountSummary(user),
      displayUsername: user.displayUsername,
      theme: user.theme,
      avatarKey: user.avatarKey,
      admin: user.role === "admin",
    },
  };
}

/** The session cookie's value from a Cookie header, if any. */
export function sessionCookieValue(cookieHeader: string | null): string | null {
  if (!cookieHeader) return null;
  const cookies = new Map<string, string>();
  for (const part of cookieHeader.split(";")) {
    const index = part.indexOf("=");
    if (index < 0) continue;
    cookies.set(part.slice(0, index).trim(), part.slice(index + 1).trim());
  }
  for (const name of SESSION_COOKIE_NAMES) {
    const value = cookies.get(name);
    if (value) return decodeURIComponent(value);
  }
  return null;
}

/**
 * The Principal of a same-origin request carrying a valid web session cookie, else null.
 * Used by the dispatcher when no key header is present.
 */
export async function authenticateWebSession(headers: Headers): Promise<Principal | null> {
  const token = sessionCookieValue(headers.get("cookie"));
  if (!token || !isSameOrigin(headers)) return null;
  const session = await resolveWebSessionToken(token);
  if (!session) return null;
  const { id, username, plan, suspended, quotaOverride } = session.user;
  return { kind: "session", user: { id, username, plan, suspended, quotaOverride }, sessionId: session.sessionId };
}
