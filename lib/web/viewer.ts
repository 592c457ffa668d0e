/** The signed-in user of the web session, its row checked; cached per request, so a page and its layout pay one query. */
import { cookies } from "next/headers";
import { cache } from "react";
import { resolveWebSessionToken, SESSION_COOKIE_NAMES } from "@/lib/auth/web-session";
import type { Plan } from "@/lib/plans";

export interface Viewer {
  id: string;
  username: string;
  plan: Plan;
  suspended: boolean;
  /** The Relay session of this sign-in (its row is what "log out" deletes). */
  sessionId: string;
  /** The user's theme (JSON text chosen in settings), or null. */
  theme: string | null;
  avatarKey: string | null;
  /** Holds the admin role (the header's menu links the console; pages still check with requireAdmin). */
  admin: boolean;
}

export const getViewer = cache(async (): Promise<Viewer | null> => {
  const jar = await cookies();
  const token = SESSION_COOKIE_NAMES.map((name) => jar.get(name)?.value).find(Boolean);
  if (!token) return null;
  const session = await resolveWebSessionToken(token);
  if (!session) return null;
  const { user } = session;
  return {
    id: user.id,
    username: user.displayUsername,
    plan: user.plan,
    suspended: user.suspended,
    sessionId: session.sessionId,
    theme: user.theme,
    avatarKey: user.avatarKey,
    admin: user.admin,
  };
});
