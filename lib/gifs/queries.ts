/**
 * The SQL behind GET /gifs. Raw (parameterised) on purpose: Prisma writes a `some` word
 * filter as `id IN (SELECT postId FROM PostWord WHERE word ...)`, which materialises every
 * post with a matching word; these statements only ever touch a bounded number of index
 * entries. Each runs unchanged on SQLite and PostgreSQL: quoted Prisma table and column
 * names, booleans and dates as parameters (the SQLite adapter writes DateTime as ISO-8601
 * text, and a Date parameter is written the same way, so comparisons are between equal
 * formats). docs/gifs.md explains the design; docs/performance.md, "GIF search" sums up the query plans that bench:gifs prints.
 */
import { empty, join, raw, sqltag as sql, type Sql } from "@prisma/client/runtime/client";
import { db } from "@/lib/db/client";
import type { Position } from "@/lib/db/paging";
import type { SearchTerm } from "./terms";

/** One row read from a driving stream: a post, its sort key, and whether GET /gifs lists it. */
export interface Candidate {
  id: string;
  /** createdAt in ms. */
  t: number;
  listed: boolean;
}

interface CandidateRow {
  id: string;
  /** A Date, or ISO text when SQLite cannot tell the column's type through a subquery. */
  t: Date | string;
  listed: number | bigint | boolean;
}

const toMillis = (value: CandidateRow["t"]): number => (value instanceof Date ? value.getTime() : new Date(value).getTime());

/**
 * "Strictly after `after`" in newest-first order. Written as a plain range on the time
 * column plus a tie-breaker, which both planners turn into an index bound.
 */
function afterClause(timeColumn: Sql, idColumn: Sql, after: Position | undefined): Sql {
  if (!after) return empty;
  const at = new Date(after.t);
  return sql`AND ${timeColumn} <= ${at} AND (${timeColumn} < ${at} OR ${idColumn} < ${after.id})`;
}

// ───────────────────────────── driving streams (id, t), newest first ─────────────────────────────

/** Public posts whose first file is a GIF, from the index Post(firstFileGif, privacy, createdAt, id). */
export function gifPostStreamSql(after: Position | undefined, take: number): Sql {
  return sql`
    SELECT "id" AS id, "createdAt" AS t FROM "Post"
     WHERE "firstFileGif" = ${true} AND "privacy" = 'public'
       ${afterClause(sql`"createdAt"`, sql`"id"`, after)}
     ORDER BY "createdAt" DESC, "id" DESC
     LIMIT ${take}`;
}

/**
 * Public-GIF posts having any of `words` (whole stored words). Each word is its own
 * ordered range of PostWord(publicGif, word, postCreatedAt, postId), read for at most
 * `take` rows; the merge of those short lists is exact, because no word can contribute
 * more than `take` rows to the first `take` of the union.
 */
export function wordStreamSql(words: readonly string[], after: Position | undefined, take: number): Sql {
  // Subquery aliases (w0, w1...) are identifiers, so raw; they come from the index alone.
  const arms = words.map(
    (word, i) => sql`
    SELECT * FROM (
      SELECT "postId" AS id, "postCreatedAt" AS t FROM "PostWord"
       WHERE "publicGif" = ${true} AND "word" = ${word}
         ${afterClause(sql`"postCreatedAt"`, sql`"postId"`, after)}
       ORDER BY "postCreatedAt" DESC, "postId" DESC
       LIMIT ${take}
    ) AS ${raw(`w${i}`)}`,
  );
  return sql`
    ${join(arms, " UNION ALL ")}
    ORDER BY t DESC, id DESC
    LIMIT ${take}`;
}

// ───────────────────────────── reading a stream, with the listing rules ─────────────────────────────

/**
 * Whether GET /gifs lists post `p`, with a word starting with each of `terms`. The listing
 * rule in one place: the conditions of `publicPostWhere` (lib/posts/list.ts: public, not
 * moderated, not a draft, not a team post; `listedPostWhere`'s no view limit, no password,
 * not expired) plus a GIF first file, not restricted, and an
 * author who is not suspended. The author is a scalar subquery, so it is one primary-key
 * seek per post on both databases (PostgreSQL could turn NOT EXISTS into a hash anti-join
 * over the whole User table); each search word is one seek in PostWord(postId, word).
 */
function listedSql(terms: readonly SearchTerm[]): Sql {
  const words = terms.map(
    (term) => sql`
       AND EXISTS (SELECT 1 FROM "PostWord" w
                    WHERE w."postId" = p."id" AND w."word" >= ${term.prefix} AND w."word" < ${term.upper})`,
  );
  return sql`
       p."firstFileGif" = ${true} AND p."privacy" = 'public'
       AND p."moderated" = ${false} AND p."restricted" = ${false} AND p."draft" = ${false}
       AND p."teamId" IS NULL
       AND p."maxViews" IS NULL AND p."passwordHash" IS NULL
       AND (p."expiresAt" IS NULL OR p."expiresAt" > ${new Date()})
       AND COALESCE((SELECT u."suspended" FROM "User" u WHERE u."id" = p."userId"), ${false}) = ${false}
       ${words.length ? join(words, " ") : empty}`;
}

/**
 * The rows of `stream`, in order, each with its verdict. The rule is evaluated in the
 * select list and the stream is the outer side of a CROSS JOIN (SQLite keeps that join
 * order; PostgreSQL picks it anyway for ~100 outer rows): were the conditions in WHERE,
 * SQLite without statistics prefers the (firstFileGif, privacy) index over the primary
 * key and reads every public GIF post.
 */
export function scanSql(stream: Sql, terms: readonly SearchTerm[]): Sql {
  return sql`
    SELECT c.id AS id, c.t AS t, CASE WHEN ${listedSql(terms)} THEN 1 ELSE 0 END AS listed
      FROM (${stream}) AS c
     CROSS JOIN "Post" p
     WHERE p."id" = c.id
     ORDER BY c.t DESC, c.id DESC`;
}

export async function scan(stream: Sql, terms: readonly SearchTerm[]): Promise<Candidate[]> {
  const rows = await db().$queryRaw<CandidateRow[]>(scanSql(stream, terms));
  return rows.map((r) => ({ id: r.id, t: toMillis(r.t), listed: Number(r.listed) === 1 }));
}

// ───────────────────────────── choosing the stream ─────────────────────────────

/**
 * The stored public-GIF words starting with `term`, in order, at most `cap + 1` of them
 * (one more than allowed says "too many"). A loose index scan: one index seek per word
 * found, however many rows each word has, where SELECT DISTINCT would read them all.
 */
export function wordsStartingWithSql(term: SearchTerm, cap: number): Sql {
  return sql`
    WITH RECURSIVE expand(word, n) AS (
      SELECT (SELECT "word" FROM "PostWord"
                WHERE "publicGif" = ${true} AND "word" >= ${term.prefix} AND "word" < ${term.upper}
                ORDER BY "word" LIMIT 1), 1
      UNION ALL
      SELECT (SELECT w."word" FROM "PostWord" w
                WHERE w."publicGif" = ${true} AND w."word" > expand.word AND w."word" < ${term.upper}
                ORDER BY w."word" LIMIT 1), n + 1
        FROM expand WHERE expand.word IS NOT NULL AND n <= ${cap}
    )
    SELECT word FROM expand WHERE word IS NOT NULL`;
}

export async function wordsStartingWith(term: SearchTerm, cap: number): Promise<string[]> {
  const rows = await db().$queryRaw<{ word: string }[]>(wordsStartingWithSql(term, cap));
  return rows.map((r) => r.word);
}

/** How many public-GIF word rows start with `term`, counting no further than `cap`. */
export function countWordRowsSql(term: SearchTerm, cap: number): Sql {
  return sql`
    SELECT COUNT(*) AS n FROM (
      SELECT 1 AS one FROM "PostWord"
       WHERE "publicGif" = ${true} AND "word" >= ${term.prefix} AND "word" < ${term.upper}
       LIMIT ${cap}
    ) AS capped`;
}

export async function countWordRows(term: SearchTerm, cap: number): Promise<number> {
  const rows = await db().$queryRaw<{ n: number | bigint }[]>(countWordRowsSql(term, cap));
  return Number(rows[0]?.n ?? 0);
}
