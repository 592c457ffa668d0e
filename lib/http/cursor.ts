/**
 * Opaque paging cursors: a position, not an offset, bound to the endpoint and its filters. No
 * secret: a forged cursor only moves the caller within a listing they may read anyway.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { DomainError } from "@/lib/errors";
import type { KeyPosition, Page, Position } from "@/lib/db/paging";

export type { KeyPosition, Position };

const payload = z.object({
  v: z.literal(1),
  e: z.string(),
  f: z.string(),
  // A time a Date can hold: beyond it `new Date(t)` is invalid and the query would fail (500).
  t: z.number().int().nonnegative().max(8_640_000_000_000_000),
  id: z.string().min(1).max(64),
});

/** A cursor of a non-default order (docs/gallery-sort.md); the default order's stay the plain ones, byte for byte. */
const sortedPayload = z.object({
  v: z.literal(2),
  e: z.string(),
  f: z.string(),
  s: z.string().min(1).max(16),
  k: z.union([z.number(), z.string().max(256)]),
  id: z.string().min(1).max(64),
});

// The bound only keeps a parse of garbage short (64 non-ASCII name characters make ~500).
const CURSOR_SHAPE = /^[A-Za-z0-9_-]{1,1000}$/;

const filterHash = (filters: Record<string, unknown>) =>
  createHash("sha256")
    .update(JSON.stringify(filters, Object.keys(filters).sort()))
    .digest("base64url")
    .slice(0, 10);

export function encodeCursor(endpoint: string, position: Position, filters: Record<string, unknown> = {}): string {
  const body = { v: 1, e: endpoint, f: filterHash(filters), t: position.t, id: position.id };
  return Buffer.from(JSON.stringify(body)).toString("base64url");
}

const bad = (why: string) => new DomainError("invalid_request", `Invalid cursor: ${why}.`);

function readCursor(endpoint: string, cursor: string, filters: Record<string, unknown>) {
  if (!CURSOR_SHAPE.test(cursor)) throw bad("not a cursor of this service");
  let parsed: z.infer<typeof payload> | z.infer<typeof sortedPayload>;
  try {
    parsed = z.union([payload, sortedPayload]).parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
  } catch {
    throw bad("not a cursor of this service");
  }
  if (parsed.e !== endpoint) throw bad("it belongs to another endpoint");
  if (parsed.f !== filterHash(filters)) throw bad("the filters changed since the first page");
  return parsed;
}

export function decodeCursor(endpoint: string, cursor: string, filters: Record<string, unknown> = {}): Position {
  const parsed = readCursor(endpoint, cursor, filters);
  // Only listings with a choice of order make the other kind.
  if (parsed.v !== 1) throw bad("not a cursor of this service");
  return { t: parsed.t, id: parsed.id };
}

/** A cursor made in another order than the one asked for is 400, as a change of filters is. */
export function encodeSortedCursor(endpoint: string, sort: string | null, position: KeyPosition, filters: Record<string, unknown>): string {
  if (sort === null) return encodeCursor(endpoint, { t: position.key as number, id: position.id }, filters);
  const body = { v: 2, e: endpoint, f: filterHash(filters), s: sort, k: position.key, id: position.id };
  return Buffer.from(JSON.stringify(body)).toString("base64url");
}

export function decodeSortedCursor(
  endpoint: string,
  cursor: string,
  filters: Record<string, unknown>,
  sort: string | null,
  accepts: (key: number | string) => boolean,
): KeyPosition {
  const parsed = readCursor(endpoint, cursor, filters);
  const made = parsed.v === 1 ? null : parsed.s;
  if (made !== sort) throw bad("it belongs to another sort order");
  if (parsed.v === 1) return { key: parsed.t, id: parsed.id };
  // A forged key the order cannot compare (a string for a size, 1.5 bytes) is 400, never a failed query.
  if (!accepts(parsed.k)) throw bad("not a cursor of this service");
  return { key: parsed.k, id: parsed.id };
}

/** The one shape of a page (docs/http-core.md, "Where each rule lives"). */
export function pageReply<K extends string, T, V>(
  key: K,
  endpoint: string,
  filters: Record<string, unknown>,
  page: Page<T>,
  view: (item: T) => V,
): PageReply<K, V> {
  return {
    [key]: page.items.map(view),
    has_more: page.hasMore,
    next_cursor: page.next ? encodeCursor(endpoint, page.next, filters) : null,
  } as PageReply<K, V>;
}

export function sortedPageReply<K extends string, T, V>(
  key: K,
  endpoint: string,
  sort: string | null,
  filters: Record<string, unknown>,
  page: Page<T, KeyPosition>,
  view: (item: T) => V,
): PageReply<K, V> {
  return {
    [key]: page.items.map(view),
    has_more: page.hasMore,
    next_cursor: page.next ? encodeSortedCursor(endpoint, sort, page.next, filters) : null,
  } as PageReply<K, V>;
}

export type PageReply<K extends string, V> = Record<K, V[]> & { has_more: boolean; next_cursor: string | null };
