/** Text read from images (docs/ocr.md) and its words, for the owner's own search. */
import type { Prisma } from "@/lib/db/client";
import { db } from "@/lib/db/client";
import { isForeignKeyViolation } from "@/lib/prisma-support";
import { normaliseWords, prefixUpperBound } from "./words";

export { automaticAlt, matchedLine } from "./text-lines";

/** Distinct words indexed per image: a dense full-screen capture has a few hundred. */
const MAX_TEXT_WORDS = 2_000;

export interface FileTextInput {
  text: string;
  language: string;
  confidence: number;
}

/** Images whose text is read: what sharp decodes, except SVG (its text is already text). */
export const readsText = (mimeType: string): boolean => mimeType.startsWith("image/") && mimeType !== "image/svg+xml";

/** Writes a file's text and words; false when the file was deleted meanwhile (nothing left behind). */
export async function saveFileText(fileId: string, input: FileTextInput): Promise<boolean> {
  const file = await db().file.findUnique({
    where: { id: fileId },
    select: { id: true, postId: true, post: { select: { createdAt: true } } },
  });
  if (!file) return false;
  const words = normaliseWords(input.text, MAX_TEXT_WORDS);
  const data = { text: input.text, language: input.language, confidence: input.confidence };
  try {
    await db().$transaction(async (tx) => {
      await tx.fileText.upsert({ where: { fileId }, create: { fileId, ...data }, update: data });
      await tx.searchWord.deleteMany({ where: { fileId } });
      if (words.length) {
        await tx.searchWord.createMany({
          data: words.map((word) => ({ word, fileId, source: fileId, postId: file.postId, postCreatedAt: file.post.createdAt })),
        });
      }
    });
  } catch (error) {
    // The post was deleted between the read and the write: its text goes with it.
    if (isForeignKeyViolation(error)) return false;
    throw error;
  }
  return true;
}

/** One search word in the owner's own search: one probe per post, as SearchWord holds both title and image words. */
export function ownSearchWord(word: string): Prisma.PostWhereInput {
  return { searchWords: { some: { word: { gte: word, lt: prefixUpperBound(word) } } } };
}

export async function filesWithoutText(afterId: string | null, take: number): Promise<{ id: string }[]> {
  return db().file.findMany({
    where: {
      ...(afterId ? { id: { gt: afterId } } : {}),
      mimeType: { startsWith: "image/", not: "image/svg+xml" },
      text: { is: null },
    },
    select: { id: true },
    orderBy: { id: "asc" },
    take,
  });
}
