/** Notification preferences. No row means every kind is on: rows are written only once a user changes something. */
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

export async function readPreferences(userId: string): Promise<NotificationPreferences> {
  const row = await db().notificationPreference.findUnique({ where: { userId }, select });
  return row ?? { ...DEFAULT_PREFERENCES };
}

/** One upsert; an empty change writes nothing. */
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
