/**
 * The SQL behind GET /gifs (docs/gifs.md; query plans in docs/performance.md, "GIF search").
 * Raw on purpose: Prisma writes a `some` word filter as an IN subquery that materialises every
 * post with a matching word; these statements touch a bounded number of index entries. Dates
 * are parameters: SQLite stores DateTime as ISO text and a Date parameter is written the same way.
 */
import { empty, join, raw, sqltag as sql, type Sql } from "@prisma/client/runtime/client";
import { db } from "@/lib/db/client";
import type { Position } from "@/lib/db/paging";
import type { SearchTerm } from "./terms";

/** One row read from a driving stream: a post, its sort key, and whether GET /gifs lists it. */
export interface Candidate {
  id: string;
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

/** "Strictly after `after`", newest first: a plain range plus a tie-breaker, which both planners turn into an index bound. */
function afterClause(timeColumn: Sql, idColumn: Sql, after: Position | undefined): Sql {
  if (!after) return empty;
  const at = new Date(after.t);
  return sql`AND ${timeColumn} <= ${at} AND (${timeColumn} < ${at} OR ${idColumn} < ${after.id})`;
}

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
 * Public-GIF posts having any of `words`: each word an ordered range of PostWord read for at
 * most `take` rows. The merge is exact: no word can add more than `take` rows to the first `take`.
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

/**
 * The listing rule in one place: `publicPostWhere` and `listedPostWhere` (lib/posts/list.ts)
 * plus a GIF first file, not restricted, an author not suspended. The author is a scalar
 * subquery, one primary-key seek per post (PostgreSQL could turn NOT EXISTS into a hash
 * anti-join over the whole User table).
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
 * The rows of `stream`, in order, each with its verdict, evaluated in the select list with the
 * stream the outer side of a CROSS JOIN: with the conditions in WHERE, SQLite without
 * statistics prefers the (firstFileGif, privacy) index and reads every public GIF post.
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

/**
 * The stored public-GIF words starting with `term`, at most `cap + 1` ("too many"): a loose
 * index scan, one seek per word, where SELECT DISTINCT would read every row.
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
