/**
 * next-auth configuration for the web pages: sign-in with username-or-email and password
 * (then a second step for accounts with two-factor sign-in), with a passkey, sign-up (as far
 * as REGISTRATION allows), and GitHub / Discord / a generic OpenID Connect issuer when their
 * variables are set (docs/web-auth.md, docs/two-factor.md, docs/passkeys.md). Sessions are JWTs whose `sid` names a Relay session row opened at sign-in (see
 * lib/auth/web-session.ts): the row is the source of truth, the JWT only points at it.
 * See docs/web-auth.md.
 */
import type { NextAuthOptions, User } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import DiscordProvider from "next-auth/providers/discord";
import GitHubProvider from "next-auth/providers/github";
import type { Provider } from "next-auth/providers/index";
import { env, type Env } from "../config/env";
import { db } from "../db/client";
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import { checkPassword } from "../auth/login";
import { verifyPasskeySignIn } from "../auth/factors/passkeys";
import { issuePendingTicket, redeemPendingTicket } from "../auth/factors/pending";
import { requiresSecondFactor, verifySecondFactor } from "../auth/factors/two-factor";
import { userForOAuthIdentity } from "../auth/oauth";
import { signUp } from "../auth/register";
import { assertNotSuspended } from "../auth/suspension";
import { webAuthSecret, type WebSessionClaims } from "../auth/web-session";
import { DomainError, isDomainError } from "../errors";
import { requestClientIp } from "../http/client-ip";
import { signInErrorCode } from "./signin-errors";
import { deviceName } from "../sessions/device-name";
import { openSession, revokeSession } from "../sessions/devices";

declare module "next-auth" {
  interface User {
    /** The Relay session opened by this sign-in. */
    sid?: string;
  }
}

/** A web session lasts 30 days from the last visit (next-auth renews the cookie). */
const SESSION_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;

type RequestLike = { headers?: Record<string, unknown> } | undefined;

function header(req: RequestLike, name: string): string | null {
  const value = req?.headers?.[name];
  return typeof value === "string" ? value : null;
}

/** What the custom server put in x-client-ip (lib/server/server.ts). */
function requestIp(req: RequestLike): string {
  return requestClientIp({ get: (name) => header(req, name) });
}

/** Sessions opened from the web are named so the owner can tell them from the apps'. */
function webDeviceName(req: RequestLike): string {
  return `Web: ${deviceName(header(req, "user-agent"), undefined)}`.slice(0, 100);
}

const field = (credentials: Record<string, string> | undefined, name: string): string =>
  typeof credentials?.[name] === "string" ? credentials[name] : "";

/** Domain errors carry a message meant for people; anything else is not shown. */
function userFacing(error: unknown): Error {
  return new Error(isDomainError(error) ? error.message : "Something went wrong; please try again.");
}

async function toUser(userId: string, sid: string): Promise<User> {
  const user = await db().user.findUniqueOrThrow({ where: { id: userId }, select: { displayUsername: true } });
  return { id: userId, name: user.displayUsername, sid };
}

async function userOfSession(sessionId: string): Promise<User> {
  const row = await db().relaySession.findUniqueOrThrow({ where: { id: sessionId }, select: { userId: true } });
  return toUser(row.userId, sessionId);
}

/**
 * The error message that tells the sign-in form to ask for a code: this prefix, then the
 * pending ticket (lib/auth/factors/pending.ts). next-auth hands a thrown message to the
 * browser as `error`, the only channel a credentials provider has.
 */
export const TWO_FACTOR_PREFIX = "two-factor:";

/** Opens the web session (a Relay session row) of a user who proved who they are. */
async function webSession(userId: string, req: RequestLike): Promise<User> {
  await assertNotSuspended(userId);
  const opened = await openSession({
    userId,
    name: webDeviceName(req),
    userAgent: header(req, "user-agent") ?? undefined,
    ip: requestIp(req),
    // Password, code or passkey: every caller of this function just checked one.
    confirmed: true,
  });
  return userOfSession(opened.session.id);
}

const credentialsSignIn = CredentialsProvider({
  id: "credentials",
  name: "Username or email",
  credentials: {
    login: { label: "Username or email", type: "text" },
    password: { label: "Password", type: "password" },
  },
  async authorize(credentials, req) {
    let userId: string;
    try {
      userId = await checkPassword({ login: field(credentials, "login"), password: field(credentials, "password"), ip: requestIp(req) });
      if (!(await requiresSecondFactor(userId))) return await webSession(userId, req);
    } catch (error) {
      throw userFacing(error);
    }
    // Right password, second step to go: no session yet, only the ticket for it.
    throw new Error(TWO_FACTOR_PREFIX + issuePendingTicket(userId));
  },
});

/** The second step: the ticket from the password step and a TOTP or recovery code. */
const twoFactorSignIn = CredentialsProvider({
  id: "two-factor",
  name: "Two-factor code",
  credentials: {
    ticket: { label: "Ticket", type: "text" },
    code: { label: "Code", type: "text" },
  },
  async authorize(credentials, req) {
    try {
      const userId = redeemPendingTicket(field(credentials, "ticket"));
      if (!userId) throw new DomainError("unauthorized", "This sign-in took too long; please enter your password again.");
      await verifySecondFactor(userId, field(credentials, "code"), requestIp(req));
      return await webSession(userId, req);
    } catch (error) {
      throw userFacing(error);
    }
  },
});

/** A passkey (discoverable credential): one step, two factors (docs/passkeys.md). */
const passkeySignIn = CredentialsProvider({
  id: "passkey",
  name: "Passkey",
  credentials: { response: { label: "Passkey response", type: "text" } },
  async authorize(credentials, req) {
    try {
      let response: AuthenticationResponseJSON;
      try {
        response = JSON.parse(field(credentials, "response")) as AuthenticationResponseJSON;
      } catch {
        throw new DomainError("unauthorized", "That passkey was not recognised.");
      }
      return await webSession(await verifyPasskeySignIn(response), req);
    } catch (error) {
      throw userFacing(error);
    }
  },
});

const credentialsRegister = CredentialsProvider({
  id: "register",
  name: "Create an account",
  credentials: {
    username: { label: "Username", type: "text" },
    email: { label: "Email (optional)", type: "email" },
    password: { label: "Password", type: "password" },
    invite: { label: "Invite code", type: "text" },
  },
  async authorize(credentials, req) {
    try {
      const email = field(credentials, "email").trim();
      const invite = field(credentials, "invite").trim();
      const signed = await signUp({
        username: field(credentials, "username").trim(),
        password: field(credentials, "password"),
        email: email || undefined,
        invite: invite || undefined,
        device: webDeviceName(req),
        userAgent: header(req, "user-agent"),
        ip: requestIp(req),
      });
      return await userOfSession(signed.session.id);
    } catch (error) {
      throw userFacing(error);
    }
  },
});

/** The sign-in settings of lib/config/env.ts that the providers are made from. */
type ProviderSettings = Pick<
  Env,
  | "GITHUB_CLIENT_ID"
  | "GITHUB_CLIENT_SECRET"
  | "DISCORD_CLIENT_ID"
  | "DISCORD_CLIENT_SECRET"
  | "OIDC_ISSUER"
  | "OIDC_CLIENT_ID"
  | "OIDC_CLIENT_SECRET"
  | "OIDC_NAME"
>;

/** OAuth providers whose client id and secret are both configured. */
export function oauthProviders(settings: ProviderSettings = env()): Provider[] {
  const providers: Provider[] = [];
  if (settings.GITHUB_CLIENT_ID && settings.GITHUB_CLIENT_SECRET) {
    providers.push(GitHubProvider({ clientId: settings.GITHUB_CLIENT_ID, clientSecret: settings.GITHUB_CLIENT_SECRET }));
  }
  if (settings.DISCORD_CLIENT_ID && settings.DISCORD_CLIENT_SECRET) {
    providers.push(DiscordProvider({ clientId: settings.DISCORD_CLIENT_ID, clientSecret: settings.DISCORD_CLIENT_SECRET }));
  }
  const oidc = oidcProvider(settings);
  if (oidc) providers.push(oidc);
  return providers;
}

/**
 * A generic OpenID Connect issuer (Keycloak, Authentik, Authelia, Google, ...): discovery
 * through its .well-known document, authorization code flow with PKCE and state, the ID
 * token checked by next-auth. The account is linked by the issuer's `sub` (provider id
 * "oidc"), never by email, like the others.
 */
export function oidcProvider(settings: ProviderSettings = env()): Provider | null {
  // Trimmed, and the issuer without a trailing slash, by lib/config/env.ts.
  const { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret } = settings;
  if (!issuer || !clientId || !clientSecret) return null;
  return {
    id: "oidc",
    name: settings.OIDC_NAME || "OpenID Connect",
    type: "oauth",
    wellKnown: `${issuer}/.well-known/openid-configuration`,
    issuer,
    clientId,
    clientSecret,
    idToken: true,
    checks: ["pkce", "state"],
    authorization: { params: { scope: "openid profile" } },
    async profile(claims: Record<string, unknown>, tokens: { access_token?: string }) {
      let name = nameClaim(claims);
      // Conforming issuers keep profile claims out of the ID token when an access token is
      // issued (OpenID Connect Core 5.4): they are at the userinfo endpoint then.
      if (!name && tokens.access_token) {
        const info = await userinfo(issuer, tokens.access_token);
        if (info && info.sub === claims.sub) name = nameClaim(info);
      }
      return { id: String(claims.sub), name: name ?? null, email: null };
    },
  } as Provider;
}

const nameClaim = (claims: Record<string, unknown>): string | undefined =>
  [claims.preferred_username, claims.nickname, claims.name].find((v): v is string => typeof v === "string" && v.length > 0);

/** The issuer's userinfo answer for an access token, or null (the name is then a default one). */
async function userinfo(issuer: string, accessToken: string): Promise<Record<string, unknown> | null> {
  try {
    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(5000) })).json()) as {
      userinfo_endpoint?: unknown;
    };
    if (typeof discovery.userinfo_endpoint !== "string") return null;
    const reply = await fetch(discovery.userinfo_endpoint, {
      headers: { authorization: `Bearer ${accessToken}` },
      signal: AbortSignal.timeout(5000),
    });
    return reply.ok ? ((await reply.json()) as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Names and ids of the configured OAuth providers, for the sign-in page's buttons. */
export function oauthProviderList(): { id: string; name: string }[] {
  return oauthProviders().map((provider) => ({ id: provider.id, name: provider.name }));
}

let cached: NextAuthOptions | undefined;

export function authOptions(): NextAuthOptions {
  if (cached) return cached;
  // next-auth builds its callback URLs and picks secure cookies from NEXTAUTH_URL.
  process.env.NEXTAUTH_URL ||= env().PUBLIC_URL;
  cached = {
    secret: webAuthSecret(),
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    // next-auth's own pages (/api/auth/signout, ...) would be HTML outside proxy.ts and its
    // security headers: every one of them is ours.
    pages: { signIn: "/signin", signOut: "/signout", error: "/signin" },
    providers: [credentialsSignIn, twoFactorSignIn, passkeySignIn, credentialsRegister, ...oauthProviders()],
    events: {
      // Signing out of the web ends its Relay session too, so it leaves the session list.
      async signOut({ token }) {
        const { uid, sid } = (token ?? {}) as Partial<WebSessionClaims>;
        if (typeof uid === "string" && typeof sid === "string") await revokeSession(uid, sid).catch(() => {});
      },
    },
    callbacks: {
      async signIn({ user, account, profile }) {
        if (account?.type !== "oauth") return true;
        try {
          const p = (profile ?? {}) as Record<string, unknown>;
          const name =
            typeof p.login === "string"
              ? p.login
              : typeof p.username === "string"
                ? p.username
                : typeof p.preferred_username === "string"
                  ? p.preferred_username
                  : (user.name ?? null);
          const userId = await userForOAuthIdentity({ provider: account.provider, providerAccountId: account.providerAccountId, name });
          // A suspended account gets no session here either (issue 27: this path skipped it).
          await assertNotSuspended(userId);
          // Two-factor sign-in covers every way in that is not a passkey: the provider's
          // sign-in counts as the password step, the code is still asked for.
          if (await requiresSecondFactor(userId)) return `/signin?ticket=${encodeURIComponent(issuePendingTicket(userId))}`;
          const opened = await openSession({ userId, name: `Web: ${account.provider}` });
          // Carried to the jwt callback on this same request.
          user.sid = opened.session.id;
          user.id = userId;
          return true;
        } catch (error) {
          return `/signin?error=${signInErrorCode(error)}`;
        }
      },
      async jwt({ token, user }) {
        if (user?.sid) {
          const claims: WebSessionClaims = { uid: user.id, sid: user.sid };
          Object.assign(token, claims);
        }
        return token;
      },
      async session({ session, token }) {
        // Only what the client needs; the session row is checked by getViewer and the API.
        return { ...session, user: { name: session.user?.name ?? null }, sid: token.sid } as typeof session;
      },
    },
  };
  return cached;
}
