/** A post's row as the domain loads it, always from the database; reader, deleter and expiry all start from it. */
import type { Prisma } from "@/lib/db/client";
import { db } from "@/lib/db/client";

export const postInclude = {
  // The text read from each image (docs/ocr.md): the owner's `text`, everyone's automatic alt.
  files: { orderBy: { index: "asc" }, include: { text: { select: { text: true, language: true, confidence: true } } } },
  user: true,
  access: { include: { user: true }, orderBy: { createdAt: "asc" } },
  // The owner's tags (docs/tags.md), by name; the post object shows them to the owner only.
  tags: { include: { tag: { select: { id: true, name: true, color: true } } }, orderBy: { tag: { nameKey: "asc" } } },
} as const satisfies Prisma.PostInclude;

export type PostRecord = Prisma.PostGetPayload<{ include: typeof postInclude }>;

export async function findPostByCode(code: string): Promise<PostRecord | null> {
  return db().post.findUnique({ where: { code }, include: postInclude });
}
