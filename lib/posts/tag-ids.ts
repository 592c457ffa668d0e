/**
 * Which tags a post may carry: the owner's own, at most POST_TAGS_MAX (docs/tags.md). Here and
 * not in lib/tags, which reads posts: a post's edit checks its tags without reaching back up.
 */
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";

/** Tags on one post: a tile shows its chips, and more than this stops being a label. */
export const POST_TAGS_MAX = 20;

const invalid = (message: string) => new DomainError("invalid_request", message);

/**
 * The ids as the account's tag ids, in the order given, repeats dropped: 400 naming the
 * first that is not one of its tags (someone else's tag is as unknown as a made-up id).
 */
export async function ownTagIds(userId: string, ids: readonly string[]): Promise<string[]> {
  const wanted = [...new Set(ids)];
  if (wanted.length > POST_TAGS_MAX) throw invalid(`A post can have at most ${POST_TAGS_MAX} tags.`);
  if (!wanted.length) return [];
  const rows = await db().tag.findMany({ where: { userId, id: { in: wanted } }, select: { id: true } });
  const known = new Set(rows.map((r) => r.id));
  const missing = wanted.find((id) => !known.has(id));
  if (missing !== undefined) throw invalid(`tags: '${missing}' is not one of your tags.`);
  return wanted;
}
