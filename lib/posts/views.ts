/**
 * Counted views (docs/relay-social.md, "Views"): at most 3 per IP per post per hour, counted in
 * the counter store whose atomic increment makes three parallel views count three and a fourth none.
 */
import { join, sqltag as sql } from "@prisma/client/runtime/client";
import { pruneHourly } from "@/lib/usage/hours";
import { db } from "@/lib/db/client";
import { lastViewGraceMs } from "./expiry-rules";
import { isForeignKeyViolation } from "@/lib/prisma-support";
import { counterStore, VIEW_DEDUP } from "@/lib/ratelimit";
import { utcDay, utcHour } from "@/lib/usage/window";

export interface ViewablePost {
  id: string;
  privacy: string;
  moderated: boolean;
  draft: boolean;
  teamId: string | null;
  /** A view-limited post counts its views through countLimitedView instead (docs/expiry.md). */
  maxViews?: number | null;
}

export const countsViews = (post: ViewablePost): boolean =>
  post.privacy === "public" && !post.moderated && !post.draft && !post.teamId && (post.maxViews ?? null) === null;

const dedupKey = (postId: string, ip: string) => `views:${postId}:${ip}`;

/** Returns the ids whose view was counted. */
export async function countViews(posts: readonly ViewablePost[], ip: string, now = new Date()): Promise<Set<string>> {
  const store = counterStore();
  const eligible = posts.filter(countsViews);
  const hits = await Promise.all(eligible.map((p) => store.increment(dedupKey(p.id, ip), VIEW_DEDUP.windowSeconds)));
  const counted = eligible.filter((_, i) => hits[i] <= VIEW_DEDUP.max).map((p) => p.id);
  if (!counted.length) return new Set();

  // One statement per table whatever the number of posts. The upserts are raw because
  // Prisma has no multi-row upsert; INSERT ... ON CONFLICT reads the same on SQLite and
  // PostgreSQL and cannot lose an increment to a concurrent first view of the day.
  try {
    await db().$transaction([
      db().post.updateMany({ where: { id: { in: counted } }, data: { viewCount: { increment: 1 } } }),
      ...viewRowStatements(db(), counted, now),
    ]);
  } catch (error) {
    // A post deleted between reading it and counting its view: nothing left to count.
    if (!isForeignKeyViolation(error)) throw error;
    return new Set();
  }
  void pruneHourly(now);
  return new Set(counted);
}

type ViewRowClient = Pick<ReturnType<typeof db>, "$executeRaw">;

function viewRowStatements(client: ViewRowClient, ids: readonly string[], now: Date) {
  const day = utcDay(now);
  const hour = utcHour(now);
  const dayRows = join(ids.map((id) => sql`(${id}, ${day}, 1)`));
  const hourRows = join(ids.map((id) => sql`(${id}, ${hour}, 1)`));
  return [
    client.$executeRaw(sql`
        INSERT INTO "PostViewDay" ("postId", "day", "views") VALUES ${dayRows}
        ON CONFLICT ("postId", "day") DO UPDATE SET "views" = "PostViewDay"."views" + 1`),
    client.$executeRaw(sql`
        INSERT INTO "PostViewHour" ("postId", "hour", "views") VALUES ${hourRows}
        ON CONFLICT ("postId", "hour") DO UPDATE SET "views" = "PostViewHour"."views" + 1`),
  ];
}

export interface LimitedViewState {
  viewCount: number;
  maxViews: number | null;
  expiresAt: Date | null;
}

/**
 * One view of a view-limited post (docs/expiry.md): the conditional UPDATE (`viewCount <
 * maxViews`) serves exactly one of any concurrent last views. Null: no view left.
 */
export async function countLimitedView(postId: string, now: Date = new Date()): Promise<LimitedViewState | null> {
  try {
    return await db().$transaction(async (tx) => {
      const { count } = await tx.post.updateMany({
        where: { id: postId, maxViews: { not: null }, viewCount: { lt: db().post.fields.maxViews } },
        data: { viewCount: { increment: 1 } },
      });
      if (!count) return null;
      const row = await tx.post.findUniqueOrThrow({ where: { id: postId }, select: { viewCount: true, maxViews: true, expiresAt: true } });
      if (row.maxViews !== null && row.viewCount >= row.maxViews) {
        const end = new Date(now.getTime() + lastViewGraceMs());
        if (!row.expiresAt || row.expiresAt > end) {
          await tx.post.update({ where: { id: postId }, data: { expiresAt: end } });
          row.expiresAt = end;
        }
      }
      for (const statement of viewRowStatements(tx, [postId], now)) await statement;
      return row;
    });
  } catch (error) {
    if (!isForeignKeyViolation(error)) throw error;
    return null;
  }
}

export async function countView(post: ViewablePost, ip: string): Promise<boolean> {
  return (await countViews([post], ip)).has(post.id);
}
