/**
 * next-auth configuration (docs/web-auth.md). Sessions are JWTs whose `sid` names a Relay session
 * row (lib/auth/web-session.ts): the row is the source of truth, the JWT only points at it.
 */
import type { NextAuthOptions } from "next-auth";
import { issuePendingTicket } from "@/lib/auth/factors/pending";
import { requiresSecondFactor } from "@/lib/auth/factors/two-factor";
import { userForOAuthIdentity } from "@/lib/auth/oauth";
import { assertNotSuspended } from "@/lib/auth/suspension";
import { webAuthSecret, type WebSessionClaims } from "@/lib/auth/web-session";
import { provideNextAuthUrl } from "@/lib/config/process-env";
import { openSession, revokeSession } from "@/lib/sessions/devices";
import { credentialsRegister, credentialsSetup, credentialsSignIn } from "./credentials";
import { oauthProviders } from "./oauth-providers";
import { passkeySignIn } from "./passkey";
import { twoFactorSignIn } from "./two-factor";
import { signInErrorCode } from "@/lib/web/signin-errors";

const SESSION_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;

let cached: NextAuthOptions | undefined;

export function authOptions(): NextAuthOptions {
  if (cached) return cached;
  // next-auth builds its callback URLs and picks secure cookies from NEXTAUTH_URL alone.
  provideNextAuthUrl();
  cached = {
    secret: webAuthSecret(),
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    // next-auth's own pages (/api/auth/signout, ...) would be HTML outside proxy.ts and its
    // security headers: every one of them is ours.
    pages: { signIn: "/signin", signOut: "/signout", error: "/signin" },
    providers: [credentialsSignIn, twoFactorSignIn, passkeySignIn, credentialsRegister, credentialsSetup, ...oauthProviders()],
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
