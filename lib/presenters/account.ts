/** The replies of the account area (lib/routes/table/account.ts) and the views that build them. */
import { z } from "zod";
import type { SessionRecord } from "@/lib/sessions/devices";
import type { NotificationPreferences } from "@/lib/users/preferences";

export const Session = z.object({
  id: z.string(),
  name: z.string().nullable(),
  current: z.boolean(),
  created_at: z.string(),
  last_active_at: z.string(),
});

export const Preferences = z.object({ likes: z.boolean(), comments: z.boolean(), comment_likes: z.boolean(), follows: z.boolean() });
export const SessionList = z.object({ sessions: z.array(Session) });
export const SessionsDeleted = z.object({ deleted_count: z.number().int() });
/** POST /auth/login, /auth/register, /auth/passkey-login: the relay-key and its session. */
export const SignedInReply = z.object({ key: z.string(), session: Session });
export const AccountDeleted = z.object({ id: z.string(), deleted: z.literal(true), posts: z.number().int(), teams: z.number().int() });

/** `currentId`: the session making the request (null for an app key), marked `current`. */
export function sessionView(session: SessionRecord, currentId: string | null): z.infer<typeof Session> {
  return {
    id: session.id,
    name: session.name,
    current: session.id === currentId,
    created_at: session.createdAt.toISOString(),
    last_active_at: session.lastActiveAt.toISOString(),
  };
}

export const signedInView = ({ key, session }: { key: string; session: SessionRecord }): z.infer<typeof SignedInReply> => ({
  key,
  session: sessionView(session, session.id),
});

/** What account deletion reports (lib/accounts/delete.ts): how many posts and teams went with it. */
export function accountDeletedView(done: { id: string; posts: number; teams: number }): z.infer<typeof AccountDeleted> {
  return { id: done.id, deleted: true, posts: done.posts, teams: done.teams };
}

export function preferencesView(p: NotificationPreferences): z.infer<typeof Preferences> {
  return { likes: p.likes, comments: p.comments, comment_likes: p.commentLikes, follows: p.follows };
}
