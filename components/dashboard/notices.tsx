/**
 * The states every dashboard panel shows alike: a problem in red, data still loading (or
 * failed to load), and a list that is loading or has nothing in it. No hooks, so server pages and client panels both use them.
 */
import type { ReactNode } from "react";
import { muted } from "./ui";

const errorBox = "rounded-md border border-red-300 bg-red-50 text-sm text-red-700 dark:border-red-800 dark:bg-red-950/40 dark:text-red-300";

/**
 * A problem in red: `alert` for the failure of what the user just did (read out at once),
 * `status` for a standing condition shown with its item. `spacing` sets padding and margins.
 */
export function ErrorNotice({
  children,
  role = "alert",
  spacing = "p-3",
}: {
  children: ReactNode;
  role?: "alert" | "status";
  spacing?: string;
}) {
  return (
    <p role={role} className={`${errorBox} ${spacing}`}>
      {children}
    </p>
  );
}

/** "Loading…" while `items` is null, `empty` when there are none, else the list that `children` renders. */
export function LoadedList<T>({
  items,
  empty,
  children,
}: {
  items: readonly T[] | null;
  empty: string;
  children: (items: readonly T[]) => ReactNode;
}) {
  if (items === null) return <p className={muted}>Loading…</p>;
  if (items.length === 0) return <p className={muted}>{empty}</p>;
  return children(items);
}

/** What a query shows before its data: "Loading…", or why it failed. */
export function Pending({ error }: { error: Error | null }) {
  return <p className={muted}>{error?.message ?? "Loading…"}</p>;
}
