/** Keyset paging, newest first: rows inserted while a client pages never shift later pages, as offsets would. */
export interface Position {
  t: number;
  id: string;
}

export interface Page<T, P = Position> {
  items: T[];
  hasMore: boolean;
  next: P | null;
}

/** A position in a list ordered by another key (docs/gallery-sort.md): the last item's key and its id. */
export interface KeyPosition {
  key: number | string;
  id: string;
}

export type Direction = "asc" | "desc";

/** "Strictly after `position`" on (key, id) in `direction`; `value` turns the cursor's key into the column's type. */
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

export const keyOrder = <F extends string>(field: F, direction: Direction) =>
  [{ [field]: direction }, { id: direction }] as Record<string, Direction>[];

export function afterPosition<F extends string>(field: F, position: Position | undefined) {
  if (!position) return {};
  const at = new Date(position.t);
  return {
    OR: [{ [field]: { lt: at } }, { [field]: at, id: { lt: position.id } }],
  } as { OR: Record<string, unknown>[] };
}

export const newestFirst = <F extends string>(field: F) => [{ [field]: "desc" }, { id: "desc" }] as Record<string, "desc">[];

/** Fetches limit + 1 rows: the extra one only says whether a next page exists. */
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
