/**
 * Keyset paging, newest first: order by (time desc, id desc) and continue strictly after
 * the last item's (time, id). Unlike offsets, rows inserted while a client pages (always
 * newer) never shift later pages, so nothing is skipped or repeated.
 */
export interface Position {
  /** Sort time in ms. */
  t: number;
  id: string;
}

export interface Page<T, P = Position> {
  items: T[];
  hasMore: boolean;
  /** Position of the last item, when there is a next page. */
  next: P | null;
}

/**
 * A position in a list ordered by another key (GET /posts?sort=, docs/gallery-sort.md): the
 * last item's key (a time in ms, a number, or a string) and its id, the tie-breaker.
 */
export interface KeyPosition {
  key: number | string;
  id: string;
}

export type Direction = "asc" | "desc";

/**
 * The `where` fragment for "strictly after `position`" on a (key, id) order in `direction`:
 * ids break ties in the key's direction, so equal keys never repeat or skip an item.
 * `value` turns the cursor's key into the column's type (a Date, a bigint).
 */
export function afterKey<F extends string>(
  field: F,
  direction: Direction,
  position: KeyPosition | undefined,
  value: (key: number | string) => unknown,
) {
  if (!position) return {};
  const at = value(position.key);
  const past = direction === "desc" ? "lt" : "gt";
  return {
    OR: [{ [field]: { [past]: at } }, { [field]: at, id: { [past]: position.id } }],
  } as { OR: Record<string, unknown>[] };
}

/** Order by (key, id), both in `direction`. */
export const keyOrder = <F extends string>(field: F, direction: Direction) =>
  [{ [field]: direction }, { id: direction }] as Record<string, Direction>[];

/** The `where` fragment for "strictly after `position`" on a (time, id) key, newest first. */
export function afterPosition<F extends string>(field: F, position: Position | undefined) {
  if (!position) return {};
  const at = new Date(position.t);
  return {
    OR: [{ [field]: { lt: at } }, { [field]: at, id: { lt: position.id } }],
  } as { OR: Record<string, unknown>[] };
}

/** Order for newest first with a stable tie-breaker. */
export const newestFirst = <F extends string>(field: F) => [{ [field]: "desc" }, { id: "desc" }] as Record<string, "desc">[];

/**
 * Runs `fetch(take)` for limit + 1 rows: the extra row only says whether a next page
 * exists. `key` reads an item's position.
 */
export async function keysetPage<T, P = Position>(
  limit: number,
  fetch: (take: number) => Promise<T[]>,
  key: (item: T) => P,
): Promise<Page<T, P>> {
  const rows = await fetch(limit + 1);
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  return { items, hasMore, next: hasMore && items.length ? key(items[items.length - 1]) : null };
}
