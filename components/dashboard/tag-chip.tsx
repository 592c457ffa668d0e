/** A tag as a small chip: its colour as a dot, then its name (docs/tags.md). */
export function TagChip({ name, color }: { name: string; color: string }) {
  return (
    <span
      className="inline-flex max-w-full items-center gap-1 rounded-full border border-zinc-300 px-1.5 py-0.5 text-xs dark:border-zinc-700"
      data-tag={name}
    >
      <span aria-hidden="true" className="h-2 w-2 shrink-0 rounded-full" style={{ backgroundColor: color }} />
      <span className="truncate">{name}</span>
    </span>
  );
}
