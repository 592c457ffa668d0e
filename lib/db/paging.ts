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

export interface Page<T> {
  items: T[];
  hasMore: boolean;
  /** Position of the last item, when there is a next page. */
  next: Position | null;
}

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
export async function keysetPage<T>(limit: number, fetch: (take: number) => Promise<T[]>, key: (item: T) => Position): Promise<Page<T>> {
  const rows = await fetch(limit + 1);
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  return { items, hasMore, next: hasMore && items.length ? key(items[items.length - 1]) : null };
}
