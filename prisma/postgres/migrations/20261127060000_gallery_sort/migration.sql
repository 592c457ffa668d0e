-- AlterTable
ALTER TABLE "Post" ADD COLUMN     "sortName" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "totalSize" BIGINT NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "Post_userId_totalSize_id_idx" ON "Post"("userId", "totalSize", "id");

-- CreateIndex
CREATE INDEX "Post_userId_viewCount_id_idx" ON "Post"("userId", "viewCount", "id");

-- CreateIndex
CREATE INDEX "Post_userId_sortName_id_idx" ON "Post"("userId", "sortName", "id");

-- Added by hand: names compare byte-wise, as on SQLite (the PostWord "word" column does the
-- same, docs/gifs.md), so both databases order a gallery by name alike and the position in a
-- cursor means the same thing in both. Prisma does not model collations: keep this if the
-- column is ever altered.
ALTER TABLE "Post" ALTER COLUMN "sortName" TYPE TEXT COLLATE "C";

-- Added by hand: the sort keys of posts written before the columns existed. The bytes are
-- exact. The name is the title, else the first file's name, lower-cased by the database
-- (SQLite folds ASCII letters only) and cut to 64 characters: lib/posts/sort-keys.ts also
-- folds accents, which SQL cannot do alike on both databases, so an older post with an
-- accented name sorts by this approximation until its title changes (docs/gallery-sort.md).
UPDATE "Post" SET
  "totalSize" = COALESCE((SELECT SUM("File"."size") FROM "File" WHERE "File"."postId" = "Post"."id"), 0),
  "sortName" = lower(substr(COALESCE("Post"."title", (SELECT "File"."name" FROM "File" WHERE "File"."postId" = "Post"."id" ORDER BY "File"."index" LIMIT 1), ''), 1, 64));
