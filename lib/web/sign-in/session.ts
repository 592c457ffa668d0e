/** Opening the web session of a user who proved who they are, and the errors a sign-in form shows. */
import { assertNotSuspended } from "@/lib/auth/suspension";
import type { User } from "next-auth";
import { db } from "@/lib/db/client";
import { isDomainError } from "@/lib/errors";
import { openSession } from "@/lib/sessions/devices";
import { header, type RequestLike, requestIp, webDeviceName } from "./client";

declare module "next-auth" {
  interface User {
    sid?: string;
  }
}

export const field = (credentials: Record<string, string> | undefined, name: string): string =>
  typeof credentials?.[name] === "string" ? credentials[name] : "";

/** Domain errors carry a message meant for people; anything else is not shown. */
export function userFacing(error: unknown): Error {
  return new Error(isDomainError(error) ? error.message : "Something went wrong; please try again.");
}

async function toUser(userId: string, sid: string): Promise<User> {
  const user = await db().user.findUniqueOrThrow({ where: { id: userId }, select: { displayUsername: true } });
  return { id: userId, name: user.displayUsername, sid };
}

export async function userOfSession(sessionId: string): Promise<User> {
  const row = await db().relaySession.findUniqueOrThrow({ where: { id: sessionId }, select: { userId: true } });
  return toUser(row.userId, sessionId);
}

export async function webSession(userId: string, req: RequestLike, confirmed = true): Promise<User> {
  await assertNotSuspended(userId);
  const opened = await openSession({
    userId,
    name: webDeviceName(req),
    userAgent: header(req, "user-agent") ?? undefined,
    ip: requestIp(req),
    // Password, code or passkey: every caller of this function just checked one (a passkey
    // still in its confirmation window does not confirm: lib/auth/factors/settling.ts).
    confirmed,
  });
  return userOfSession(opened.session.id);
}
