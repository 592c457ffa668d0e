-- DropIndex
DROP INDEX "PostWord_word_postCreatedAt_postId_idx";

-- DropIndex
DROP INDEX "PostWord_postId_idx";

-- AlterTable
ALTER TABLE "PostWord" ADD COLUMN     "publicGif" BOOLEAN NOT NULL DEFAULT false;

-- Added by hand: word-prefix search compares `word` as a range (word >= 'cat' AND
-- word < 'cau'). Under a linguistic collation (en_US and the like) that range is not the
-- set of words starting with 'cat' ('zebra' < '{' is false there), so `word` compares
-- byte-wise, as on SQLite. Prisma does not model collations: keep this if the column is
-- ever altered.
ALTER TABLE "PostWord" ALTER COLUMN "word" TYPE TEXT COLLATE "C";

-- Added by hand: rows written before the column existed.
UPDATE "PostWord" SET "publicGif" = true
 WHERE "postId" IN (SELECT "id" FROM "Post" WHERE "firstFileGif" = true AND "privacy" = 'public');

-- CreateIndex
CREATE INDEX "PostWord_publicGif_word_postCreatedAt_postId_idx" ON "PostWord"("publicGif", "word", "postCreatedAt", "postId");

-- CreateIndex
CREATE INDEX "PostWord_postId_word_idx" ON "PostWord"("postId", "word");
