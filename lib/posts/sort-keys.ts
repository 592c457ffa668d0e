/**
 * The gallery's sort keys stored on a post (docs/gallery-sort.md): its files' bytes
 * together (`totalSize`) and the name a card shows folded for comparing (`sortName`). Each
 * write that changes what they are made of (upload, append, file delete, title edit) sets
 * them in the same transaction.
 */

/** Characters of the folded name kept: enough to order by, short enough for a cursor. */
export const SORT_NAME_MAX_LENGTH = 64;

/**
 * The name key: the title, else the first file's name (what a card shows, lib/presenters/
 * title.ts), lower-cased with accents folded, so "Émile" sorts beside "emile" on both
 * databases (PostgreSQL compares the column byte-wise, as SQLite does).
 */
export function sortNameOf(title: string | null | undefined, firstFileName: string | undefined): string {
  const name = title?.trim() || firstFileName || "";
  return Array.from(
    name
      .normalize("NFKD")
      .replace(/\p{M}+/gu, "")
      .toLowerCase()
      .normalize("NFC"),
  )
    .slice(0, SORT_NAME_MAX_LENGTH)
    .join("");
}

/** The bytes of a post's files together. */
export function totalSizeOf(files: ReadonlyArray<{ size: bigint | number }>): bigint {
  return files.reduce((sum, f) => sum + BigInt(f.size), 0n);
}
