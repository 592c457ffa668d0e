/**
 * Issue 27, review findings: a suspended account gets no web session from OAuth / OIDC
 * (the next-auth signIn callback, as next-auth calls it after the provider's answer), and
 * the dashboard's server actions refuse a suspended user's session with 403 `suspended`
 * as the API does. `/signin?error=` shows only known messages.
 */
import { encode } from "next-auth/jwt";
import type { Account, Profile, User } from "next-auth";
import { describe, expect, it } from "vitest";
import { userForOAuthIdentity } from "@/lib/auth/oauth";
import { resolveWebSessionToken, webAuthSecret } from "@/lib/auth/web-session";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { openSession } from "@/lib/sessions/devices";
import { authOptions } from "@/lib/web/sign-in/options";
import { actingUserIdOf } from "@/lib/web/dashboard/user";
import { signInErrorText } from "@/lib/web/signin-errors";
import { useTestDatabase } from "../support/db";
import { createTestUser } from "../support/fixtures";

useTestDatabase();

type SignInCallback = (params: { user: User; account: Account | null; profile?: Profile }) => Promise<string | boolean>;

async function oauthSignIn(sub: string): Promise<string | boolean> {
  const signIn = authOptions().callbacks?.signIn as unknown as SignInCallback;
  const account = { type: "oauth", provider: "oidc", providerAccountId: sub } as Account;
  return signIn({ user: { id: sub, name: null }, account, profile: { sub, preferred_username: `o${sub}` } as Profile });
}

describe("OAuth / OIDC sign-in of a suspended account", () => {
  it("opens a session for an active account, and none once it is suspended", async () => {
    const sub = `sub${Date.now().toString(36)}`;
    expect(await oauthSignIn(sub)).toBe(true);
    const userId = await userForOAuthIdentity({ provider: "oidc", providerAccountId: sub, name: null });
    expect(await db().relaySession.count({ where: { userId } })).toBe(1);

    await db().user.update({ where: { id: userId }, data: { suspended: true, suspendedAt: new Date() } });
    expect(await oauthSignIn(sub)).toBe("/signin?error=suspended");
    expect(await db().relaySession.count({ where: { userId } })).toBe(1);
    expect(signInErrorText("suspended")).toBe("This account is suspended.");
  });
});

describe("dashboard actions of a suspended user", () => {
  it("acts for an active viewer and refuses a suspended one with `suspended`", async () => {
    const user = await createTestUser();
    const opened = await openSession({ userId: user.id, name: "Web: test" });
    const token = await encode({ token: { uid: user.id, sid: opened.session.id }, secret: webAuthSecret() });
    const viewerOf = async () => {
      const session = await resolveWebSessionToken(token);
      if (!session) throw new Error("no session");
      return {
        id: session.user.id,
        username: "",
        plan: session.user.plan,
        suspended: session.user.suspended,
        sessionId: "",
        theme: null,
        avatarKey: null,
        admin: false,
      };
    };
    expect(actingUserIdOf(await viewerOf())).toBe(user.id);

    await db().user.update({ where: { id: user.id }, data: { suspended: true, suspendedAt: new Date() } });
    const refusal = (() => {
      try {
        actingUserIdOf(null);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toMatchObject({ type: "unauthorized" });
    const viewer = await viewerOf();
    expect(() => actingUserIdOf(viewer)).toThrow(DomainError);
    try {
      actingUserIdOf(viewer);
    } catch (error) {
      expect(error).toMatchObject({ type: "suspended", httpStatus: 403 });
    }
  });
});

describe("/signin?error=", () => {
  it("shows known messages only; caller-written text becomes the generic line", () => {
    expect(signInErrorText(null)).toBeNull();
    expect(signInErrorText("CredentialsSignin")).toBe("Wrong username, email or password.");
    const injected = "Your account is locked. Call +1 555 0100 to unlock it.";
    expect(signInErrorText(injected)).toBe("That sign-in did not work; please try again.");
    expect(signInErrorText("OAuthCallback")).toBe("That sign-in did not work; please try again.");
    expect(signInErrorText("toString")).toBe("That sign-in did not work; please try again.");
  });
});
