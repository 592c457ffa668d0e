/** Signing in with username-or-email and password, and signing up (as far as REGISTRATION allows); docs/web-auth.md. */
import CredentialsProvider from "next-auth/providers/credentials";
import { claimInstance } from "@/lib/accounts/setup";
import { checkPassword } from "@/lib/auth/login";
import { issuePendingTicket } from "@/lib/auth/factors/pending";
import { requiresSecondFactor } from "@/lib/auth/factors/two-factor";
import { signUp } from "@/lib/auth/register";
import { header, requestIp, webDeviceName } from "./client";
import { field, userFacing, userOfSession, webSession } from "./session";
import { TWO_FACTOR_PREFIX } from "./two-factor";

export const credentialsSignIn = CredentialsProvider({
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

export const credentialsRegister = CredentialsProvider({
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

/** The first administrator, through /setup with the set-up code (docs/setup.md). */
export const credentialsSetup = CredentialsProvider({
  id: "setup",
  name: "Set up this instance",
  credentials: {
    code: { label: "Set-up code", type: "text" },
    username: { label: "Username", type: "text" },
    email: { label: "Email (optional)", type: "email" },
    password: { label: "Password", type: "password" },
  },
  async authorize(credentials, req) {
    try {
      const admin = await claimInstance({
        code: field(credentials, "code"),
        username: field(credentials, "username").trim(),
        password: field(credentials, "password"),
        email: field(credentials, "email").trim() || undefined,
        ip: requestIp(req),
      });
      return await webSession(admin.id, req);
    } catch (error) {
      throw userFacing(error);
    }
  },
});
