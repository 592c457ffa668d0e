/**
 * Notifications (docs/relay-social.md): events of one kind about one subject merge into the
 * recipient's newest unread entry of that group opened less than GROUP_WINDOW_MS ago; a read
 * entry is history. `notify` and `retractNotification` run inside the action's transaction
 * after it updated the subject's counter row: on PostgreSQL that row lock queues concurrent
 * events of one group, so "find the open entry, else create one" cannot open two.
 */
import type { Tx } from "@/lib/db/client";
import { db } from "@/lib/db/client";
import { afterPosition, keysetPage, newestFirst, type Page, type Position } from "@/lib/db/paging";
import { isHidden, postInclude, type PostRecord } from "@/lib/posts/read";
import type { UserRecord } from "@/lib/users/profile";
import { blockBetween } from "./relations";

export const NOTIFICATION_KINDS = ["like", "comment", "comment_like", "follow", "mention"] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const GROUP_WINDOW_MS = 24 * 3600 * 1000;
/** Newest first; `count` has the total. */
export const ACTORS_SHOWN = 10;

type PreferenceSwitch = "likes" | "comments" | "commentLikes" | "follows";
const SWITCH_OF: Record<NotificationKind, PreferenceSwitch> = {
  like: "likes",
  comment: "comments",
  mention: "comments",
  comment_like: "commentLikes",
  follow: "follows",
};

export interface NotificationEvent {
  kind: NotificationKind;
  recipientId: string;
  actorId: string;
  postId?: string | null;
  /** Comment likes; the newest comment for comments and mentions. */
  commentId?: string | null;
}

export function groupKeyOf(event: NotificationEvent): string {
  switch (event.kind) {
    case "follow":
      return "follow";
    case "comment_like":
      return `comment_like:${event.commentId}`;
    default:
      return `${event.kind}:${event.postId}`;
  }
}

type NotifyTx = Pick<Tx, "notification" | "notificationActor" | "notificationPreference" | "block">;

async function wanted(tx: NotifyTx, event: NotificationEvent): Promise<boolean> {
  if (event.actorId === event.recipientId) return false;
  const preferences = await tx.notificationPreference.findUnique({ where: { userId: event.recipientId } });
  // No row: every kind is on (the defaults of the model).
  if (preferences && !preferences[SWITCH_OF[event.kind]]) return false;
  return !(await blockBetween(tx, event.actorId, event.recipientId));
}

/** Never of the recipient's own doing, across a block, or of a kind switched off (mentions follow `comments`). */
export async function notify(tx: NotifyTx, event: NotificationEvent, now = new Date()): Promise<void> {
  if (!(await wanted(tx, event))) return;
  const groupKey = groupKeyOf(event);
  const open = await tx.notification.findFirst({
    where: { userId: event.recipientId, groupKey, read: false, createdAt: { gte: new Date(now.getTime() - GROUP_WINDOW_MS) } },
    orderBy: { createdAt: "desc" },
    select: { id: true },
  });
  if (!open) {
    await tx.notification.create({
      data: {
        userId: event.recipientId,
        kind: event.kind,
        groupKey,
        postId: event.postId ?? null,
        commentId: event.commentId ?? null,
        count: 1,
        createdAt: now,
        updatedAt: now,
        actors: { create: { userId: event.actorId, createdAt: now } },
      },
      select: { id: true },
    });
    return;
  }
  const actorKey = { notificationId_userId: { notificationId: open.id, userId: event.actorId } };
  const known = await tx.notificationActor.findUnique({ where: actorKey, select: { userId: true } });
  if (known) await tx.notificationActor.update({ where: actorKey, data: { createdAt: now }, select: { userId: true } });
  else
    await tx.notificationActor.create({
      data: { notificationId: open.id, userId: event.actorId, createdAt: now },
      select: { userId: true },
    });
  await tx.notification.update({
    where: { id: open.id },
    data: {
      updatedAt: now,
      ...(event.commentId ? { commentId: event.commentId } : {}),
      ...(known ? {} : { count: { increment: 1 } }),
    },
    select: { id: true },
  });
}

async function dropActor(tx: Pick<Tx, "notification" | "notificationActor">, notificationId: string, actorId: string): Promise<void> {
  const { count } = await tx.notificationActor.deleteMany({ where: { notificationId, userId: actorId } });
  if (!count) return;
  const left = await tx.notification.update({ where: { id: notificationId }, data: { count: { decrement: 1 } }, select: { count: true } });
  if (left.count <= 0) await tx.notification.delete({ where: { id: notificationId }, select: { id: true } });
}

/** Takes an event back when its action is undone: the actor leaves the unread entries; read ones stay. */
export async function retractNotification(tx: Pick<Tx, "notification" | "notificationActor">, event: NotificationEvent): Promise<void> {
  const entries = await tx.notification.findMany({
    where: { userId: event.recipientId, groupKey: groupKeyOf(event), read: false, actors: { some: { userId: event.actorId } } },
    select: { id: true },
  });
  for (const entry of entries) await dropActor(tx, entry.id, event.actorId);
}

/** On a block: each side disappears from the other's notifications, read or not. */
export async function forgetNotificationsBetween(tx: Pick<Tx, "notification" | "notificationActor">, a: string, b: string): Promise<void> {
  const rows = await tx.notificationActor.findMany({
    where: {
      OR: [
        { userId: a, notification: { userId: b } },
        { userId: b, notification: { userId: a } },
      ],
    },
    select: { notificationId: true, userId: true },
  });
  for (const row of rows) await dropActor(tx, row.notificationId, row.userId);
}

/** An account being deleted leaves every entry it acted in; an entry left without actors goes. */
export async function forgetActor(actorId: string): Promise<void> {
  const rows = await db().notificationActor.findMany({ where: { userId: actorId }, select: { notificationId: true } });
  // One short transaction per entry: an account may have acted in thousands.
  for (const row of rows) await db().$transaction((tx) => dropActor(tx, row.notificationId, actorId));
}

/** The kind of a guest upload's entry (docs/guest-uploads.md); not one of NOTIFICATION_KINDS, whose switches it has none of. */
export const GUEST_UPLOAD_KIND = "guest_upload";

/**
 * Guests uploaded `count` posts into the recipient's folder, the newest `postId`: merged into
 * the folder's open entry (unread, opened within GROUP_WINDOW_MS), whose `count` is the posts
 * received, else a new entry. No actors: a guest has no account. Always recorded: the owner
 * opened the folder to guests and hears of what arrives.
 */
export async function notifyGuestUpload(
  recipientId: string,
  folderId: string,
  postId: string,
  count: number,
  now = new Date(),
): Promise<void> {
  const groupKey = `${GUEST_UPLOAD_KIND}:${folderId}`;
  await db().$transaction(async (tx) => {
    const open = await tx.notification.findFirst({
      where: { userId: recipientId, groupKey, read: false, createdAt: { gte: new Date(now.getTime() - GROUP_WINDOW_MS) } },
      orderBy: { createdAt: "desc" },
      select: { id: true },
    });
    if (open) {
      await tx.notification.update({
        where: { id: open.id },
        data: { postId, updatedAt: now, count: { increment: count } },
        select: { id: true },
      });
      return;
    }
    await tx.notification.create({
      data: { userId: recipientId, kind: GUEST_UPLOAD_KIND, groupKey, postId, count, createdAt: now, updatedAt: now },
      select: { id: true },
    });
  });
}

/**
 * Entries worth showing: at least one actor who is not suspended; a guest upload's entry
 * has no actor (guests have no account: docs/guest-uploads.md) and is always shown.
 */
const shownWhere = (userId: string) => ({
  userId,
  // AND, not OR at the top: the page's position (afterPosition) is an OR of its own.
  AND: [{ OR: [{ actors: { some: { user: { suspended: false } } } }, { kind: GUEST_UPLOAD_KIND }] }],
});

export interface NotificationItem {
  id: string;
  kind: string;
  count: number;
  read: boolean;
  updatedAt: Date;
  actors: UserRecord[];
  postCode: string | null;
  /** The post, when the recipient may still see it (for its thumbnail). */
  post: PostRecord | null;
}

function postVisibleTo(post: PostRecord, userId: string): boolean {
  if (post.userId === userId) return true;
  if (post.moderated) return false;
  return !isHidden(post) || (!post.draft && !post.teamId && post.access.some((a) => a.userId === userId));
}

/** Keyset-paged on (updatedAt, id). */
export async function listNotifications(userId: string, limit: number, after?: Position): Promise<Page<NotificationItem>> {
  const page = await keysetPage(
    limit,
    (take) =>
      db().notification.findMany({
        where: { ...shownWhere(userId), ...afterPosition("updatedAt", after) },
        orderBy: newestFirst("updatedAt"),
        take,
        include: {
          actors: {
            where: { user: { suspended: false } },
            include: { user: true },
            orderBy: [{ createdAt: "desc" }, { userId: "desc" }],
            take: ACTORS_SHOWN,
          },
          post: { include: postInclude },
        },
      }),
    (n) => ({ t: n.updatedAt.getTime(), id: n.id }),
  );
  return {
    ...page,
    items: page.items.map((n) => ({
      id: n.id,
      kind: n.kind,
      count: n.count,
      read: n.read,
      updatedAt: n.updatedAt,
      actors: n.actors.map((a) => a.user),
      postCode: n.post?.code ?? null,
      post: n.post && postVisibleTo(n.post, userId) ? n.post : null,
    })),
  };
}

export async function countUnread(userId: string): Promise<number> {
  return db().notification.count({ where: { ...shownWhere(userId), read: false } });
}

/** Marks the given entries (the caller's own; other ids ignored) or all; returns what is still unread. */
export async function markRead(userId: string, ids?: readonly string[]): Promise<number> {
  await db().notification.updateMany({
    where: { userId, read: false, ...(ids ? { id: { in: [...ids] } } : {}) },
    data: { read: true },
  });
  return ids ? countUnread(userId) : 0;
}
