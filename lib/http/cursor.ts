/**
 * Opaque paging cursors. A cursor marks a position (the last item's sort key), not an
 * offset, so pages stay stable while new posts arrive. It names the endpoint and a hash of
 * the listing's filters, and is refused (400) anywhere else. No secret is needed: a forged
 * cursor can only move the caller to another position of a listing they may read anyway.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { DomainError } from "../errors";
import type { Page, Position } from "../db/paging";

export type { Position };

const payload = z.object({
  v: z.literal(1),
  e: z.string(),
  f: z.string(),
  t: z.number().int().nonnegative(),
  id: z.string().min(1).max(64),
});

const filterHash = (filters: Record<string, unknown>) =>
  createHash("sha256")
    .update(JSON.stringify(filters, Object.keys(filters).sort()))
    .digest("base64url")
    .slice(0, 10);

export function encodeCursor(endpoint: string, position: Position, filters: Record<string, unknown> = {}): string {
  const body = { v: 1, e: endpoint, f: filterHash(filters), t: position.t, id: position.id };
  return Buffer.from(JSON.stringify(body)).toString("base64url");
}

export function decodeCursor(endpoint: string, cursor: string, filters: Record<string, unknown> = {}): Position {
  const bad = (why: string) => new DomainError("invalid_request", `Invalid cursor: ${why}.`);
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw bad("not a cursor of this service");
  let parsed: z.infer<typeof payload>;
  try {
    parsed = payload.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
  } catch {
    throw bad("not a cursor of this service");
  }
  if (parsed.e !== endpoint) throw bad("it belongs to another endpoint");
  if (parsed.f !== filterHash(filters)) throw bad("the filters changed since the first page");
  return { t: parsed.t, id: parsed.id };
}

/**
 * The one shape of a page (docs/http-core.md, "Where each rule lives"): `{<key>: [...],
 * has_more, next_cursor}`, the cursor bound to the endpoint and its filters ("Cursors").
 */
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

/** `{<key>: V[], has_more, next_cursor}`: what `paged(key, item)` in lib/presenters/schemas.ts describes. */
export type PageReply<K extends string, V> = Record<K, V[]> & { has_more: boolean; next_cursor: string | null };
