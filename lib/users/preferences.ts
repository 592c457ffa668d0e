/**
 * Notification preferences: one switch per notification kind. The NotificationPreference
 * table is the single source of truth; notification delivery (lib/social) reads it with
 * `readPreferences`. No row means every kind is on: rows are only written once a user
 * changes something, so most users cost nothing here.
 */
import { db } from "@/lib/db/client";

export interface NotificationPreferences {
  likes: boolean;
  comments: boolean;
  commentLikes: boolean;
  follows: boolean;
}

export type PreferenceChanges = Partial<NotificationPreferences>;

export const DEFAULT_PREFERENCES: Readonly<NotificationPreferences> = Object.freeze({
  likes: true,
  comments: true,
  commentLikes: true,
  follows: true,
});

const select = { likes: true, comments: true, commentLikes: true, follows: true } as const;

/** The user's switches, defaults filled in. */
export async function readPreferences(userId: string): Promise<NotificationPreferences> {
  const row = await db().notificationPreference.findUnique({ where: { userId }, select });
  return row ?? { ...DEFAULT_PREFERENCES };
}

/**
 * Changes the given switches and returns all of them. One upsert: the first change
 * creates the row with the defaults for the switches not given. An empty change writes
 * nothing.
 */
export async function updatePreferences(userId: string, changes: PreferenceChanges): Promise<NotificationPreferences> {
  const data: PreferenceChanges = {};
  for (const kind of Object.keys(select) as (keyof NotificationPreferences)[]) {
    const value = changes[kind];
    if (value !== undefined) data[kind] = value;
  }
  if (Object.keys(data).length === 0) return readPreferences(userId);
  return db().notificationPreference.upsert({
    where: { userId },
    create: { userId, ...DEFAULT_PREFERENCES, ...data },
    update: data,
    select,
  });
}
