/**
 * Web sessions (next-auth JWT) resolved to the same Principal as a relay-key (docs/web-auth.md).
 * The JWT carries a Relay session row's id, checked on every request, so signing a session out
 * ends it at once. The cookie only authenticates same-origin requests (CSRF).
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

export const SESSION_COOKIE_NAMES = ["__Secure-next-auth.session-token", "next-auth.session-token"] as const;

const ACTIVITY_RESOLUTION_MS = 60_000;

/** Else derived from the signing secret, so `npm start` needs no configuration and restarts keep people signed in. */
export function webAuthSecret(): string {
  const configured = env().NEXTAUTH_SECRET;
  if (configured) return configured;
  return createHmac("sha256", signingSecret()).update("mediahost-nextauth-v1").digest("base64url");
}

export interface WebSessionClaims {
  uid: string;
  sid: string;
}

export interface WebSession {
  user: AccountSummary & { displayUsername: string; theme: string | null; avatarKey: string | null; admin: boolean };
  sessionId: string;
}

/** Null when anything is off. */
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
    // Not awaited, and moves no change number (lib/db/unannounced.ts).
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

/** For the dispatcher when no key header is present. */
export async function authenticateWebSession(headers: Headers): Promise<Principal | null> {
  const token = sessionCookieValue(headers.get("cookie"));
  if (!token || !isSameOrigin(headers)) return null;
  const session = await resolveWebSessionToken(token);
  if (!session) return null;
  const { id, username, plan, suspended, quotaOverride } = session.user;
  return { kind: "session", user: { id, username, plan, suspended, quotaOverride }, sessionId: session.sessionId };
}
