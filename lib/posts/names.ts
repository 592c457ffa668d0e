/** File names inside a post: from the client's name, safe in a URL path, unique per post. */

const MAX_BASE = 80;

/** `../My Shot (1).PNG` with ext "png" → `My_Shot_1.png`. The extension follows the stored format. */
export function fileNameFor(clientName: string, ext: string): string {
  const base = (clientName.split(/[\\/]/).pop() ?? "")
    .replace(/\.[^.]*$/, "")
    .normalize("NFC")
    .replace(/[^\p{L}\p{N}._-]+/gu, "_")
    .replace(/^[._-]+|[._-]+$/g, "")
    .slice(0, MAX_BASE);
  return `${base || "file"}.${ext}`;
}

/** `a.png` → `a-2.png` (then -3, ...) until it is not in `taken`. */
export function uniqueName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name.toLowerCase())) return name;
  const dot = name.lastIndexOf(".");
  const [base, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}${ext}`;
    if (!taken.has(candidate.toLowerCase())) return candidate;
  }
}
