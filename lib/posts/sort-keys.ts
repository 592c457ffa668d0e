/** The gallery's sort keys stored on a post (docs/gallery-sort.md), set in the same transaction as what changes them. */

/** Characters of the folded name kept: enough to order by, short enough for a cursor. */
export const SORT_NAME_MAX_LENGTH = 64;

/** The title or first file's name, lower-cased with accents folded: PostgreSQL compares the column byte-wise, as SQLite does. */
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

export function totalSizeOf(files: ReadonlyArray<{ size: bigint | number }>): bigint {
  return files.reduce((sum, f) => sum + BigInt(f.size), 0n);
}
