/** Pure helpers over the text read from images (docs/ocr.md), shared by server and browser. */
import { normaliseWords } from "./words";

/** Characters of the text used as an image's automatic alt text. */
export const AUTO_ALT_CHARS = 150;

/** The start of an image's text, on one line, for `alt` when the post has no description (null when none). */
export function automaticAlt(text: string | null | undefined): string | null {
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  if (!flat) return null;
  if (flat.length <= AUTO_ALT_CHARS) return flat;
  const cut = flat.slice(0, AUTO_ALT_CHARS);
  const space = cut.lastIndexOf(" ");
  return `${space > AUTO_ALT_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}

/** The line holding the most search words (first of equals); null when none. */
export function matchedLine(texts: readonly (string | null | undefined)[], search: string): string | null {
  const wanted = normaliseWords(search).slice(0, 6);
  if (!wanted.length) return null;
  let best: string | null = null;
  let bestCount = 0;
  for (const text of texts) {
    for (const line of (text ?? "").split("\n")) {
      const words = normaliseWords(line, 1000);
      const count = wanted.filter((w) => words.some((word) => word.startsWith(w))).length;
      if (count > bestCount) {
        best = line.trim();
        bestCount = count;
      }
    }
  }
  return best;
}

/** Each file's automatic alt; undefined when the post has a description (the author's words win). */
export function autoAltsOf(description: string | null, files: readonly { text: { text: string } | null }[]): (string | null)[] | undefined {
  return description ? undefined : files.map((f) => automaticAlt(f.text?.text));
}
