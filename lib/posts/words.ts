/** Searchable words, normalised alike on both databases, so a search word is an index range, never a LIKE '%cat%' scan. */
import type { Tx } from "@/lib/db/client";

/** A 30-character title and 200-character description hold at most 115 words; the cap must not leave real words unsearchable. */
const MAX_WORDS = 128;
const MAX_WORD_LENGTH = 40;

export function normaliseWords(text: string, maxWords: number = MAX_WORDS): string[] {
  const words = text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((w) => w.slice(0, MAX_WORD_LENGTH));
  return [...new Set(words)].slice(0, maxWords);
}

export function prefixUpperBound(prefix: string): string {
  const last = prefix.codePointAt(prefix.length - 1)!;
  return prefix.slice(0, prefix.length - String.fromCodePoint(last).length) + String.fromCodePoint(last + 1);
}

export async function indexPostWords(
  tx: Tx,
  post: { id: string; createdAt: Date; title: string | null; description: string | null },
): Promise<void> {
  await tx.postWord.deleteMany({ where: { postId: post.id } });
  // The owner's search reads its own copy (SearchWord, source ""; docs/ocr.md).
  await tx.searchWord.deleteMany({ where: { postId: post.id, source: "" } });
  const words = normaliseWords(`${post.title ?? ""} ${post.description ?? ""}`);
  if (!words.length) return;
  await tx.postWord.createMany({ data: words.map((word) => ({ word, postId: post.id, postCreatedAt: post.createdAt })) });
  await tx.searchWord.createMany({ data: words.map((word) => ({ word, postId: post.id, source: "", postCreatedAt: post.createdAt })) });
}
